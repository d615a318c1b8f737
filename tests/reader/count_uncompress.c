/* SPDX-License-Identifier: MIT */
/*
 * count_uncompress.c - see count_uncompress.h.
 */
#include "config.h"

#include "reader/count_uncompress.h"

#include "sqfs/comp/internal.h"
#include "sqfs/image_internal.h"

static const compressor_ops_t *real_ops;
static compressor_ops_t counting_ops;
static unsigned long uncompress_calls;

static ptrdiff_t counting_uncompress(sqfs_compressor_t *cmp, const uint8_t *in,
				     size_t size, uint8_t *out, size_t outsize)
{
	__atomic_fetch_add(&uncompress_calls, 1, __ATOMIC_RELAXED);
	return real_ops->uncompress(cmp, in, size, out, outsize);
}

static int counting_copy(const sqfs_compressor_t *cmp, sqfs_compressor_t **out)
{
	int ret = real_ops->copy(cmp, out);

	if (ret == 0)
		(*out)->ops = &counting_ops;
	return ret;
}

void count_uncompress(sqfs_image_t *img)
{
	sqfs_compressor_t *cmp = image_compressor(img);

	real_ops = cmp->ops;
	counting_ops = *real_ops;
	counting_ops.uncompress = counting_uncompress;
	counting_ops.copy = counting_copy;
	cmp->ops = &counting_ops;
	__atomic_store_n(&uncompress_calls, 0, __ATOMIC_RELAXED);
}

unsigned long uncompress_count(void)
{
	return __atomic_load_n(&uncompress_calls, __ATOMIC_RELAXED);
}

unsigned long stop_counting(sqfs_image_t *img)
{
	image_compressor(img)->ops = real_ops;
	return uncompress_count();
}
