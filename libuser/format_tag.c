// SPDX-License-Identifier: MIT
/*
 * format_tag.c - named formats as data: oneDNN's format-tag grammar, and one
 * table of aliases over it.
 *
 * A tag names every logical dim with a letter, outermost first: lower case
 * is a plain dim, upper case a blocked one, and the suffix lists the inner
 * blocks from outer to inner, so ABcd4b16a4b splits b twice and keeps
 * [B, A, c, d, 4b, 16a, 4b] in memory. Letters a, b, c, ... are logical dims
 * 0, 1, 2, ... (oneDNN's tags); other letters are read through the dim-name
 * table below (nchw, oihw, goihw, ...), so nChw16c is aBcd16b and
 * gOIhw16i16o is aBCde16c16b. A leading '*' stands for leading batch dims,
 * plain and outermost; the letters then name the last dims.
 *
 * Named formats of other libraries (MegEngine's NCHW4, CANN's NC1HWC0 and
 * fractals, CUTLASS's RowMajor) are lines of tc_aliases: a name pattern and
 * the tag it stands for. Padding follows oneDNN: a blocked dim is padded to
 * the product of its blocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* Largest inner block and block parameter (as the fractal --block was). */
#define TC_BLOCK_MAX	(1 << 20)
/* Longest alias expansion; every line of the table is far below it. */
#define TC_TAG_TEXT	64

/*
 * Logical order of named dims, one entry per set of letters: a tag whose
 * letters are a permutation of an entry reads them in the entry's order.
 * These are the letters of oneDNN's aliases (x, nc, ncw, nchw, ncdhw for
 * data; oi... and goi... for weights and grouped weights; t, n, c for RNN
 * data and l, d, i, g, o for RNN weights). Spatial dims are innermost in
 * logical order, d (depth) before h before w. A set of letters may appear
 * once: the table must stay unambiguous.
 */
static const char *const tc_dim_names[] = {
	"x",
	"nc", "oi", "tn",
	"ncw", "oiw", "tnc",
	"nchw", "oihw", "goiw", "ldnc", "ldio", "ldgo",
	"ncdhw", "oidhw", "goihw", "ldigo",
	"goidhw",
};

/*
 * Aliases: @name matches the format name ('#' a decimal number, copied to
 * the '#' of @tag); @tag is grammar text, where $1 and $2 are the block
 * parameters: @block gives their defaults ("C0" is 32 bytes / element size,
 * as CATLASS and CANN size a fractal row), and --block "RxC" or "C0"
 * overrides them. Lookups try this table before the grammar, so an alias
 * must not also be a valid tag (tests/unit/test_format.c checks).
 */
static const struct tc_format_alias tc_aliases[] = {
	/* MegEngine (and oneDNN's nChw8c, nChw16c): C blocked by x */
	{ "NCW#",	 "nCw#c",	NULL,	 0 },
	{ "NCHW#",	 "nChw#c",	NULL,	 0 },
	{ "NCDHW#",	 "nCdhw#c",	NULL,	 0 },
	{ "CHWN4",	 "Chwn4c",	NULL,	 0 },
	/* CANN: [N, C1, H, W, C0] */
	{ "NC1HWC0",	 "nChw$1c",	"C0",	 0 },
	/* matrices (batch..., rows, cols): CUTLASS's names, CANN's ND; a
	 * vector (rank 1) is its one dim in any of them */
	{ "RowMajor",	 "*ab",		NULL,	 1 },
	{ "ND",		 "*ab",		NULL,	 0 },
	{ "ColumnMajor", "*ba",		NULL,	 1 },
	/*
	 * CATLASS fractals: lower case the order inside a fractal, upper case
	 * between fractals; z/Z row-major, n/N column-major. zN and zZ hold
	 * 16 x C0 fractals, nZ and nN C0 x 16; $1 x $2 is rows x cols.
	 */
	{ "zN",		 "*BA$1a$2b",	"16xC0", 0 },
	{ "zZ",		 "*AB$1a$2b",	"16xC0", 0 },
	{ "nZ",		 "*AB$2b$1a",	"C0x16", 0 },
	{ "nN",		 "*BA$2b$1a",	"C0x16", 0 },
};

const struct tc_format_alias *tc_format_aliases(size_t *n)
{
	*n = TC_ARRAY_SIZE(tc_aliases);
	return tc_aliases;
}

/* A tag after parsing: dims in logical order 0..rank-1. */
struct tc_tag {
	int rank;
	int order[TILECOPY_MAX_RANK];	/* physical order, outermost first */
	int nblk;
	int blk_dim[TILECOPY_MAX_LEAVES];	/* inner blocks, outer to inner */
	int64_t blk[TILECOPY_MAX_LEAVES];
};

/* What the parser saw, before letters become logical dims. */
struct tc_tag_text {
	int star;
	int n;				/* dim letters */
	char dim[TILECOPY_MAX_RANK];	/* as written, outermost first */
	int nblk;
	char blk_dim[TILECOPY_MAX_LEAVES];
	int64_t blk[TILECOPY_MAX_LEAVES];
};

/* ASCII only: a name means the same in every locale. */
static int tc_lower(int c)
{
	return c >= 'a' && c <= 'z';
}

static int tc_upper(int c)
{
	return c >= 'A' && c <= 'Z';
}

static int tc_digit(int c)
{
	return c >= '0' && c <= '9';
}

static char tc_to_lower(int c)
{
	return (char)(tc_upper(c) ? c - 'A' + 'a' : c);
}

static char tc_to_upper(int c)
{
	return (char)(tc_lower(c) ? c - 'a' + 'A' : c);
}

static tilecopy_status_t tc_tag_bad(const char *name, const char *why)
{
	return tc_fail(TILECOPY_ERR_UNKNOWN_FORMAT, "format: unknown format '%.64s': %s",
		       name, why);
}

/* Digits at *p as a block in 1..TC_BLOCK_MAX; advances *p. */
static tilecopy_status_t tc_tag_number(const char *name, const char **p,
				       int64_t *v)
{
	const char *s = *p, *start = *p;
	int64_t x = 0;

	while (tc_digit(*s)) {
		if (x <= TC_BLOCK_MAX)
			x = x * 10 + (*s - '0');
		s++;
	}
	*p = s;
	if (x < 1 || x > TC_BLOCK_MAX)
		return tc_fail(TILECOPY_ERR_BLOCK,
			       "format: %.64s: block %.*s is not in 1..%d", name,
			       s - start > 64 ? 64 : (int)(s - start), start,
			       TC_BLOCK_MAX);
	*v = x;
	return TILECOPY_SUCCESS;
}

/* Split @s into dim letters and inner blocks: ['*'] letters (number letter)*. */
static tilecopy_status_t tc_tag_scan(const char *name, const char *s,
				     struct tc_tag_text *t)
{
	tilecopy_status_t st;

	memset(t, 0, sizeof(*t));
	if (*s == '*')
		t->star = 1, s++;
	while ((tc_lower(*s) || tc_upper(*s))) {
		if (t->n == TILECOPY_MAX_RANK)
			return tc_tag_bad(name, "more than 16 dims");
		t->dim[t->n++] = *s++;
	}
	if (!t->n)
		return tc_tag_bad(name, "no dim letters");
	while (*s) {
		if (!tc_digit(*s))
			return tc_tag_bad(name, "an inner block is a number and a dim letter (16c)");
		if (t->nblk == TILECOPY_MAX_LEAVES - t->n)
			return tc_tag_bad(name, "more leaves than a layout holds (32)");
		st = tc_tag_number(name, &s, &t->blk[t->nblk]);
		if (st)
			return st;
		if (!(tc_lower(*s) || tc_upper(*s)))
			return tc_tag_bad(name, "an inner block is a number and a dim letter (16c)");
		t->blk_dim[t->nblk++] = *s++;
	}
	return TILECOPY_SUCCESS;
}

/* Position of letter @c in the logical order @names (lower case), or -1. */
static int tc_letter_pos(const char *names, char c)
{
	const char *p = strchr(names, tc_to_lower(c));

	return p && c ? (int)(p - names) : -1;
}

/* The logical order the letters of @t are a permutation of, or NULL. */
static const char *tc_tag_names(const struct tc_tag_text *t, char *abc)
{
	unsigned int seen = 0;
	int canonical = 1;

	for (int i = 0; i < t->n; i++) {
		int c = tc_to_lower(t->dim[i]);

		if (c - 'a' >= t->n)
			canonical = 0;
	}
	for (int i = 0; i < t->n; i++)
		abc[i] = (char)('a' + i);
	abc[t->n] = '\0';
	if (canonical)
		return abc;
	for (size_t k = 0; k < TC_ARRAY_SIZE(tc_dim_names); k++) {
		const char *names = tc_dim_names[k];

		if (strlen(names) != (size_t)t->n)
			continue;
		seen = 0;
		for (int i = 0; i < t->n; i++) {
			int p = tc_letter_pos(names, t->dim[i]);

			if (p >= 0)
				seen |= 1u << p;
		}
		if (seen == (1u << t->n) - 1)
			return names;
	}
	return NULL;
}

static int tc_is_blocked(const struct tc_tag_text *t, char lower)
{
	for (int k = 0; k < t->nblk; k++)
		if (t->blk_dim[k] == lower)
			return 1;
	return 0;
}

/* Upper case means blocked: check both ways, letter by letter. */
static tilecopy_status_t tc_tag_check_case(const char *name,
					   const struct tc_tag_text *t)
{
	char why[96];

	for (int i = 0; i < t->n; i++) {
		char c = t->dim[i], lc = tc_to_lower(c);

		if (memchr(t->dim, c, (size_t)i) ||
		    (c != lc && memchr(t->dim, lc, (size_t)t->n)) ||
		    (c == lc && memchr(t->dim, tc_to_upper(c), (size_t)t->n))) {
			snprintf(why, sizeof(why), "dim %c appears twice", lc);
			return tc_tag_bad(name, why);
		}
	}
	for (int k = 0; k < t->nblk; k++) {
		char c = t->blk_dim[k];

		if (tc_upper(c) ||
		    !memchr(t->dim, tc_to_upper(c), (size_t)t->n)) {
			snprintf(why, sizeof(why),
				 "inner block %lld%c needs lower case %c and %c among the dims",
				 (long long)t->blk[k], c, tc_to_lower(c),
				 tc_to_upper(c));
			return tc_tag_bad(name, why);
		}
	}
	for (int i = 0; i < t->n; i++) {
		char c = t->dim[i];

		if (tc_upper(c) &&
		    !tc_is_blocked(t, tc_to_lower(c))) {
			snprintf(why, sizeof(why),
				 "%c is upper case (blocked) but has no inner block", c);
			return tc_tag_bad(name, why);
		}
	}
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_tag_unknown_dims(const char *name,
					     const struct tc_tag_text *t)
{
	char why[256];
	size_t n;

	n = (size_t)snprintf(why, sizeof(why), "dims %.*s are not a..%c",
			     t->n, t->dim, 'a' + t->n - 1);
	for (size_t k = 0; k < TC_ARRAY_SIZE(tc_dim_names) && n < sizeof(why); k++)
		if (strlen(tc_dim_names[k]) == (size_t)t->n)
			n += (size_t)snprintf(why + n, sizeof(why) - n, ", %s",
					      tc_dim_names[k]);
	if (n < sizeof(why))
		snprintf(why + n, sizeof(why) - n, " in any order");
	return tc_tag_bad(name, why);
}

/*
 * tc_tag_parse - grammar text @s (of format @name) for a tensor of @rank.
 * @post tag->order is a permutation of 0..rank-1; every block names a dim.
 */
static tilecopy_status_t tc_tag_parse(struct tc_tag *tag, const char *name,
				      const char *s, int rank)
{
	struct tc_tag_text t;
	const char *names;
	char abc[TILECOPY_MAX_RANK + 1];
	int batch, plain_upper = 1;
	tilecopy_status_t st;

	st = tc_tag_scan(name, s, &t);
	/* "bogus0": letters that are no dims are the error, not the block */
	if (st == TILECOPY_ERR_BLOCK && !tc_tag_names(&t, abc))
		return tc_tag_unknown_dims(name, &t);
	if (st)
		return st;
	/* NCHW, NHWC: an all-upper-case name without blocks is plain. */
	for (int i = 0; i < t.n; i++)
		plain_upper &= !!tc_upper(t.dim[i]);
	if (plain_upper && !t.nblk)
		for (int i = 0; i < t.n; i++)
			t.dim[i] = tc_to_lower(t.dim[i]);
	st = tc_tag_check_case(name, &t);
	if (st)
		return st;
	names = tc_tag_names(&t, abc);
	if (!names)
		return tc_tag_unknown_dims(name, &t);
	batch = rank - t.n;
	if (batch < 0 || (batch && !t.star))
		return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH,
			       "shape: format %.64s needs rank %s%d, got %d", name,
			       t.star ? ">= " : "", t.n, rank);
	tag->rank = rank;
	for (int i = 0; i < batch; i++)
		tag->order[i] = i;
	for (int i = 0; i < t.n; i++)
		tag->order[batch + i] = batch + tc_letter_pos(names, t.dim[i]);
	tag->nblk = t.nblk;
	for (int k = 0; k < t.nblk; k++) {
		tag->blk_dim[k] = batch + tc_letter_pos(names, t.blk_dim[k]);
		tag->blk[k] = t.blk[k];
	}
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_tag_overflow(void)
{
	return tc_fail(TILECOPY_ERR_OVERFLOW, "shape: physical size overflows 64 bits");
}

/*
 * tc_tag_layout - the layout of @tag for logical extents @ext, as oneDNN's
 * blocking: inner blocks dense and innermost (the last one has stride 1),
 * then the outer dims in @order, dim d holding ceil(ext[d] / its blocks).
 * Mode d is (last block of d, ..., first block of d, outer count): the
 * innermost block is the fastest digit of the coordinate.
 */
static tilecopy_status_t tc_tag_layout(tilecopy_layout_t *l,
				       const struct tc_tag *tag,
				       const int64_t *ext)
{
	int64_t bsz[TILECOPY_MAX_RANK], outer[TILECOPY_MAX_RANK];
	int64_t ostride[TILECOPY_MAX_RANK], bstride[TILECOPY_MAX_LEAVES];
	int64_t sh[TILECOPY_MAX_LEAVES], st[TILECOPY_MAX_LEAVES], s = 1;
	tilecopy_status_t err;

	for (int d = 0; d < tag->rank; d++)
		bsz[d] = 1;
	for (int k = tag->nblk - 1; k >= 0; k--) {
		bstride[k] = s;
		if (tc_mul_ovf(s, tag->blk[k], &s) ||
		    tc_mul_ovf(bsz[tag->blk_dim[k]], tag->blk[k], &bsz[tag->blk_dim[k]]))
			return tc_tag_overflow();
	}
	for (int k = tag->rank - 1; k >= 0; k--) {
		int d = tag->order[k];

		outer[d] = tc_ceil_div(ext[d], bsz[d]);
		ostride[d] = s;
		if (tc_mul_ovf(s, outer[d], &s))
			return tc_tag_overflow();
	}
	tc_layout_init_flat(l, 0, NULL, NULL);
	for (int d = 0; d < tag->rank; d++) {
		int n = 0;

		for (int k = tag->nblk - 1; k >= 0; k--) {
			if (tag->blk_dim[k] != d)
				continue;
			sh[n] = tag->blk[k];
			st[n++] = bstride[k];
		}
		sh[n] = outer[d];
		st[n++] = ostride[d];
		err = tc_layout_append_mode(l, n, sh, st);
		if (err)
			return err;
	}
	return TILECOPY_SUCCESS;
}

/* Does @name match @a->name ('#' = one or more digits)? Digits go to @num. */
static int tc_alias_match(const struct tc_format_alias *a, const char *name,
			  char *num, size_t size)
{
	const char *hash = strchr(a->name, '#');
	size_t pre, n;

	if (!hash)
		return a->icase ? !strcasecmp(name, a->name) : !strcmp(name, a->name);
	pre = (size_t)(hash - a->name);
	if (strncmp(name, a->name, pre))
		return 0;
	n = strspn(name + pre, "0123456789");
	if (!n || strcmp(name + pre + n, hash + 1) || n >= size)
		return 0;
	memcpy(num, name + pre, n);
	num[n] = '\0';
	return 1;
}

/*
 * One block parameter at *s: digits, or in a default "C0" (32 bytes of
 * @ebits-bit elements: 64 of int4).
 */
static int64_t tc_alias_param(const char **s, unsigned int ebits, int dflt)
{
	int64_t v = 0;

	if (dflt && !strncmp(*s, "C0", 2)) {
		*s += 2;
		return 256 / (int64_t)ebits;
	}
	while (tc_digit(**s) && v <= TC_BLOCK_MAX)
		v = v * 10 + (*(*s)++ - '0');
	return v;
}

/* Block parameters: the defaults of @a ("16xC0"), or --block "RxC". */
static tilecopy_status_t tc_alias_params(const struct tc_format_alias *a,
					 const char *name, const char *block,
					 unsigned int ebits, int64_t *p, int *np)
{
	const char *s = block ? block : a->block;
	int want = strchr(a->block, 'x') ? 2 : 1;

	for (*np = 0; *np < want; (*np)++) {
		p[*np] = tc_alias_param(&s, ebits, !block);
		if (p[*np] < 1 || p[*np] > TC_BLOCK_MAX)
			break;
		if (*np + 1 < want && *s != 'x' && *s != 'X')
			break;
		if (*np + 1 < want)
			s++;
	}
	if (*np != want || *s)
		return tc_fail(TILECOPY_ERR_BLOCK,
			       "block: '%.64s' is not %s for %s, each in 1..%d",
			       block ? block : a->block,
			       want == 2 ? "ROWSxCOLS" : "one number",
			       name, TC_BLOCK_MAX);
	return TILECOPY_SUCCESS;
}

/* The tag text of alias @a (matched by @name): '#' and $1, $2 replaced. */
static tilecopy_status_t tc_alias_expand(const struct tc_format_alias *a,
					 const char *name, const char *num,
					 const char *block, unsigned int ebits,
					 char *out, size_t size)
{
	int64_t p[2];
	int np = 0;
	size_t n = 0;
	tilecopy_status_t st;

	if (block && !a->block)
		return tc_fail(TILECOPY_ERR_BLOCK,
			       "block: format %.64s takes no block override", name);
	if (a->block) {
		st = tc_alias_params(a, name, block, ebits, p, &np);
		if (st)
			return st;
	}
	for (const char *t = a->tag; *t && n + 24 < size; t++) {
		if (*t == '#')
			n += (size_t)snprintf(out + n, size - n, "%s", num);
		else if (*t == '$' && t[1] >= '1' && t[1] - '1' < np)
			n += (size_t)snprintf(out + n, size - n, "%lld",
					      (long long)p[*++t - '1']);
		else
			out[n++] = *t;
	}
	out[n] = '\0';
	return TILECOPY_SUCCESS;
}

tilecopy_status_t tc_format_tag(tilecopy_layout_t *l, const char *name,
			       const char *text, const int64_t *ext, int rank)
{
	struct tc_tag tag = { 0 };
	tilecopy_status_t st;

	st = tc_tag_parse(&tag, name, text, rank);
	if (st)
		return st;
	return tc_tag_layout(l, &tag, ext);
}

tilecopy_status_t tc_format_named(tilecopy_layout_t *l, const char *name,
				  const int64_t *ext, int rank, unsigned int ebits,
				  const char *block)
{
	char num[24], text[TC_TAG_TEXT];
	tilecopy_status_t st;

	for (size_t i = 0; i < TC_ARRAY_SIZE(tc_aliases); i++) {
		if (!tc_alias_match(&tc_aliases[i], name, num, sizeof(num)))
			continue;
		st = tc_alias_expand(&tc_aliases[i], name, num, block, ebits, text,
				     sizeof(text));
		if (st)
			return st;
		/* a plain matrix alias (*ab, *ba) takes a vector: its one dim */
		if (rank == 1 && text[0] == '*' && strlen(text) == 3)
			return tc_format_tag(l, name, "a", ext, rank);
		return tc_format_tag(l, name, text, ext, rank);
	}
	if (block)
		return tc_fail(TILECOPY_ERR_BLOCK,
			       "block: format %.64s takes no block override", name);
	return tc_format_tag(l, name, name, ext, rank);
}
