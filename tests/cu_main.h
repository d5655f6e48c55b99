/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The main() every CUnit test binary shares: run the tests of one suite,
 * print CUnit's summary, exit 1 when any assertion failed, 2 when CUnit
 * itself could not run.  A test file defines `static CU_TestInfo tests[]`
 * and `#define SUITE "name"` before including this.
 */
#ifndef IOTRACE_CU_MAIN_H
#define IOTRACE_CU_MAIN_H

#include <CUnit/Basic.h>

int main(void)
{
	CU_SuiteInfo suites[] = {
		{ SUITE, NULL, NULL, NULL, NULL, tests },
		CU_SUITE_INFO_NULL,
	};
	unsigned int failed;

	if (CU_initialize_registry() != CUE_SUCCESS || CU_register_suites(suites) != CUE_SUCCESS)
		return 2;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS)
		return 2;
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}

#endif
