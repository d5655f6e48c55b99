// SPDX-License-Identifier: GPL-2.0
/*
 * The SQLite accuracy workload (DESIGN §7, "SQLite inserts with fsync"): a
 * fixed amount of work, so its run time is what the replay must predict.
 *
 *   sqlite_ins DB N    create DB with one table, then N inserts of a 100-byte
 *                      row, each in its own transaction (autocommit), with
 *                      synchronous=FULL and the default rollback journal:
 *                      every insert creates, writes, fsyncs and deletes
 *                      DB-journal and writes and fsyncs DB
 *
 * Prints the elapsed seconds from before the open to after the close.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int exec_or_die(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "sqlite_ins: %s: %s\n", sql, msg ? msg : "?");
		sqlite3_free(msg);
		exit(1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	sqlite3_stmt *ins;
	char val[101];
	sqlite3 *db;
	long n;

	if (argc != 3 || (n = atol(argv[2])) < 1) {
		fprintf(stderr, "usage: sqlite_ins DB N\n");
		return 2;
	}
	memset(val, 'v', 100);
	val[100] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
		fprintf(stderr, "sqlite_ins: open %s: %s\n", argv[1], sqlite3_errmsg(db));
		return 1;
	}
	exec_or_die(db, "PRAGMA synchronous=FULL");
	exec_or_die(db, "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT)");
	if (sqlite3_prepare_v2(db, "INSERT INTO t (v) VALUES (?)", -1, &ins, NULL) != SQLITE_OK) {
		fprintf(stderr, "sqlite_ins: prepare: %s\n", sqlite3_errmsg(db));
		return 1;
	}
	for (long i = 0; i < n; i++) {
		sqlite3_bind_text(ins, 1, val, 100, SQLITE_STATIC);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			fprintf(stderr, "sqlite_ins: insert %ld: %s\n", i, sqlite3_errmsg(db));
			return 1;
		}
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	sqlite3_close(db);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.6f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
