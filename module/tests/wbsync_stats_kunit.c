// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of wbsync_stats.c: the histogram's buckets, the
 * percentiles read from it, and where durations go when superblock rows
 * or cells run out.
 *
 * Built as wbsync_kunit.ko where the kernel has KUnit (the lab's debug
 * variant).  It compiles its own copy of wbsync_stats.c, to reach the
 * static functions, and shares no state with a loaded wbsync.ko.
 */
#include <kunit/test.h>

#include "../wbsync_stats.c"

/* Exact below WBSYNC_LIN: one bucket per microsecond */
static void wbsync_bucket_exact_test(struct kunit *test)
{
	u64 us;

	for (us = 0; us < WBSYNC_LIN; us++) {
		KUNIT_EXPECT_EQ(test, wbsync_bucket(us), us);
		KUNIT_EXPECT_EQ(test, wbsync_bucket_max(us), us);
	}
}

/*
 * Every value lies in its bucket, (max of the previous one, max of its
 * own], at most 1/WBSYNC_SUBS below the bucket's max (but in the last,
 * unbounded, bucket); every bucket is the bucket of its own max, so none
 * is unreachable.
 */
static void wbsync_bucket_check(struct kunit *test, u64 us)
{
	unsigned int b = wbsync_bucket(us);

	KUNIT_ASSERT_LT(test, b, WBSYNC_NR_BUCKETS);
	KUNIT_EXPECT_GE(test, wbsync_bucket_max(b), us);
	if (b)
		KUNIT_EXPECT_LT(test, wbsync_bucket_max(b - 1), us);
	if (b < WBSYNC_NR_BUCKETS - 1)
		KUNIT_EXPECT_LE(test, wbsync_bucket_max(b) - us,
				us >> WBSYNC_SUB_BITS);
}

static void wbsync_bucket_bounds_test(struct kunit *test)
{
	unsigned int b, e;
	u64 us;

	for (us = 0; us < 70000; us++)
		wbsync_bucket_check(test, us);
	for (e = WBSYNC_FIRST_LOG; e <= WBSYNC_MAX_LOG; e++) {
		wbsync_bucket_check(test, BIT_ULL(e) - 1);
		wbsync_bucket_check(test, BIT_ULL(e));
		wbsync_bucket_check(test, BIT_ULL(e) + 1);
		wbsync_bucket_check(test, BIT_ULL(e + 1) - 1);
	}
	for (b = 0; b < WBSYNC_NR_BUCKETS; b++)
		KUNIT_EXPECT_EQ(test, wbsync_bucket(wbsync_bucket_max(b)), b);
}

/* From 15 * 2^32 us (18 hours) on: the last bucket, which has no bound */
static void wbsync_bucket_overflow_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, wbsync_bucket_max(WBSYNC_NR_BUCKETS - 2),
			15 * BIT_ULL(32) - 1);
	KUNIT_EXPECT_EQ(test, wbsync_bucket_max(WBSYNC_NR_BUCKETS - 1), U64_MAX);
	KUNIT_EXPECT_EQ(test, wbsync_bucket(BIT_ULL(WBSYNC_MAX_LOG + 1)),
			WBSYNC_NR_BUCKETS - 1);
	KUNIT_EXPECT_EQ(test, wbsync_bucket(U64_MAX), WBSYNC_NR_BUCKETS - 1);
}

static void wbsync_cell_add_us(struct wbsync_cell *c, u64 us)
{
	wbsync_cell_add(c, us * NSEC_PER_USEC, wbsync_bucket(us));
}

static void wbsync_percentile_test(struct kunit *test)
{
	struct wbsync_cell *c;
	u64 us, p;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);

	/* 1..1000 us: rank 500 is 500 us, rank 990 is 990 us */
	for (us = 1000; us >= 1; us--)
		wbsync_cell_add_us(c, us);
	KUNIT_EXPECT_EQ(test, c->count, 1000);
	KUNIT_EXPECT_EQ(test, c->min_ns, 1 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, c->max_ns, 1000 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, c->sum_ns, 500500 * NSEC_PER_USEC);
	p = wbsync_percentile(c, 50);
	KUNIT_EXPECT_GE(test, p, 500);
	KUNIT_EXPECT_LE(test, p, 500 + 500 / WBSYNC_SUBS);
	p = wbsync_percentile(c, 99);
	KUNIT_EXPECT_GE(test, p, 990);
	KUNIT_EXPECT_LE(test, p, 990 + 990 / WBSYNC_SUBS);
	/* the top bucket reaches past the largest value: clamped to it */
	KUNIT_EXPECT_EQ(test, wbsync_percentile(c, 100), 1000);

	/* one value: every percentile is that value, not its bucket's max */
	memset(c, 0, sizeof(*c));
	wbsync_cell_add_us(c, 7777);
	KUNIT_EXPECT_EQ(test, wbsync_percentile(c, 50), 7777);
	KUNIT_EXPECT_EQ(test, wbsync_percentile(c, 99), 7777);

	/* in the unbounded last bucket: the maximum, not the minimum */
	memset(c, 0, sizeof(*c));
	wbsync_cell_add_us(c, BIT_ULL(40));
	wbsync_cell_add_us(c, BIT_ULL(41));
	KUNIT_EXPECT_EQ(test, wbsync_percentile(c, 99), BIT_ULL(41));
}

static void wbsync_key_nr(struct wbsync_key *key, unsigned int nr)
{
	memset(key, 0, sizeof(*key));
	key->dev = MKDEV(254, nr);
	snprintf(key->s_id, sizeof(key->s_id), "vd%u", nr);
}

/* Sum of the counts of @phase in the overflow row */
static u64 wbsync_overflow_count(enum wbsync_phase phase)
{
	return wbsync_st->cells[wbsync_st->rows[WBSYNC_ROW_OVERFLOW].cell[phase]].count;
}

/*
 * More superblocks than rows, then more (row, phase) pairs than cells:
 * each duration is still counted, in the overflow row; reset frees all.
 */
static void wbsync_stats_overflow_test(struct kunit *test)
{
	struct wbsync_key key;
	unsigned int i, p;
	u64 total = 0;

	KUNIT_ASSERT_EQ(test, wbsync_stats_init(), 0);

	for (i = 0; i < WBSYNC_MAX_SB + 3; i++) {
		wbsync_key_nr(&key, i);
		wbsync_stats_record(&key, WBSYNC_PH_SYNC, 1000);
	}
	KUNIT_EXPECT_TRUE(test, wbsync_st->rows[WBSYNC_NR_ROWS - 1].used);
	KUNIT_EXPECT_EQ(test, wbsync_overflow_count(WBSYNC_PH_SYNC), 3);
	/* a superblock seen before keeps its row */
	wbsync_key_nr(&key, 5);
	wbsync_stats_record(&key, WBSYNC_PH_SYNC, 1000);
	KUNIT_EXPECT_EQ(test, wbsync_overflow_count(WBSYNC_PH_SYNC), 3);

	wbsync_stats_reset();
	KUNIT_EXPECT_EQ(test, wbsync_st->nr_cells, WBSYNC_NR_PHASES);
	KUNIT_EXPECT_FALSE(test, wbsync_st->rows[WBSYNC_ROW_FIRST_SB].used);
	KUNIT_EXPECT_EQ(test, wbsync_overflow_count(WBSYNC_PH_SYNC), 0);

	for (i = 0; i < WBSYNC_MAX_SB; i++) {
		wbsync_key_nr(&key, i);
		for (p = 0; p < WBSYNC_NR_PHASES; p++)
			wbsync_stats_record(&key, p, 1000);
	}
	KUNIT_EXPECT_EQ(test, wbsync_st->nr_cells, WBSYNC_NR_CELLS);
	for (p = 0; p < WBSYNC_NR_PHASES; p++)
		total += wbsync_overflow_count(p);
	KUNIT_EXPECT_EQ(test, total,
			WBSYNC_MAX_SB * WBSYNC_NR_PHASES - WBSYNC_MAX_CELLS);

	wbsync_stats_exit();
}

static struct kunit_case wbsync_stats_test_cases[] = {
	KUNIT_CASE(wbsync_bucket_exact_test),
	KUNIT_CASE(wbsync_bucket_bounds_test),
	KUNIT_CASE(wbsync_bucket_overflow_test),
	KUNIT_CASE(wbsync_percentile_test),
	KUNIT_CASE(wbsync_stats_overflow_test),
	{}
};

static struct kunit_suite wbsync_stats_test_suite = {
	.name = "wbsync_stats",
	.test_cases = wbsync_stats_test_cases,
};

kunit_test_suite(wbsync_stats_test_suite);

MODULE_DESCRIPTION("KUnit tests of wbsync.ko's statistics");
MODULE_LICENSE("GPL");
