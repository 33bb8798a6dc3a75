// SPDX-License-Identifier: MIT
/*
 * cmd_layout.c - `tilecopy layout FORMAT --shape S --dtype T [--block B]`.
 *
 * Line 1: the layout in CuTe notation. Then a grid of element offsets (the
 * tables of the CATLASS docs): rows x cols for matrices (first matrix of a
 * batch), C x W for 3-5-D tensors (other coordinates 0). Last: the physical
 * size.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define GRID_MAX 32

/*
 * Rows and columns of the grid: the first two blocked dims (modes of more
 * than one leaf: O x I of OIhw16i16o, rows x cols of zN), else the first
 * blocked one and the last dim (C x W of nChw16c), else dim 1 x the last
 * (C x W of NCHW) or a matrix's rows x cols.
 */
static void grid_axes(const tilecopy_layout_t *l, int rank, int *row, int *col)
{
	int blocked[2], n = 0, first, count;

	for (int m = 0; m < rank && n < 2; m++)
		if (!tilecopy_layout_mode_leaves(l, m, &first, &count) && count > 1)
			blocked[n++] = m;
	*col = n == 2 ? blocked[1] : rank - 1;
	if (n)
		*row = blocked[0] == *col ? -1 : blocked[0];
	else
		*row = rank >= 3 ? 1 : rank - 2;
}

void cli_draw(const tilecopy_tensor_t *t, FILE *out)
{
	int64_t crd[TILECOPY_MAX_RANK] = { 0 }, ext[TILECOPY_MAX_RANK], off, maxoff = 0;
	const tilecopy_layout_t *l;
	const char *f = "";
	int row, col, nr, nc, w = 1, rank = 0;

	if (tilecopy_tensor_rank(t, &rank) || tilecopy_tensor_shape(t, ext, TILECOPY_MAX_RANK) ||
	    tilecopy_tensor_layout(t, &l) || tilecopy_tensor_format(t, &f) ||
	    tilecopy_layout_cosize(l, &maxoff))
		return;
	grid_axes(l, rank, &row, &col);
	nr = row < 0 ? 1 : (int)(ext[row] < GRID_MAX ? ext[row] : GRID_MAX);
	nc = (int)(ext[col] < GRID_MAX ? ext[col] : GRID_MAX);
	for (int64_t m = maxoff; m >= 10; m /= 10)
		w++;
	fprintf(out, "offsets (%s, rows = dim %d, cols = dim %d, other coordinates 0%s):\n",
		f, row < 0 ? 0 : row, col,
		(row >= 0 && ext[row] > GRID_MAX) || ext[col] > GRID_MAX ?
		", first 32 shown" : "");
	for (int r = 0; r < nr; r++) {
		for (int c = 0; c < nc; c++) {
			if (row >= 0)
				crd[row] = r;
			crd[col] = c;
			if (tilecopy_layout_crd2idx(l, crd, rank, &off))
				return;
			fprintf(out, "%*" PRId64 "%s", w, off, c + 1 < nc ? " " : "");
		}
		fprintf(out, "%s\n", nc < ext[col] ? " ..." : "");
	}
	if (row >= 0 && nr < ext[row])
		fprintf(out, "...\n");
}

int cmd_layout(int argc, char **argv)
{
	struct cli_opts o;
	tilecopy_tensor_t *t;
	const tilecopy_layout_t *l;
	tilecopy_dtype_t dt;
	char buf[2048];
	uint64_t bytes;
	int64_t elems = 0;
	size_t bits = 0;
	int pad;
	tilecopy_status_t st;

	if (cli_parse(argc, argv, &o))
		return cli_usage("layout", stderr, 2);
	if (o.help)
		return cli_usage("layout", stdout, 0);
	if (o.version)
		return cli_version();
	if (o.nargs != 1)
		return cli_usage("layout", stderr, 2);
	t = cli_tensor(&o, o.args[0], NULL, o.block);
	if (!t)
		return 1;
	st = tilecopy_tensor_layout(t, &l);
	if (!st)
		st = tilecopy_layout_print(l, buf, sizeof(buf));
	if (!st)
		printf("%s\n", buf);
	if (!st)
		cli_draw(t, stdout);
	if (!st)
		st = tilecopy_tensor_bytes(t, &bytes);
	if (!st)
		st = tilecopy_tensor_dtype(t, &dt);
	if (!st)
		st = tilecopy_dtype_bits(dt, &bits);
	if (!st)
		st = tilecopy_layout_cosize(l, &elems);
	if (!st)
		st = tilecopy_tensor_has_padding(t, &pad);
	if (!st && bits >= 8)
		printf("physical size: %" PRIu64 " bytes (%" PRIu64 " elements of %zu bytes)%s\n",
		       bytes, bytes / (bits / 8), bits / 8, pad ? ", with padding" : "");
	else if (!st)	/* 4-bit: two a byte, the last byte's high nibble maybe unused */
		printf("physical size: %" PRIu64 " bytes (%" PRId64 " elements of 4 bits, two a byte)%s\n",
		       bytes, elems, pad ? ", with padding" : "");
	tilecopy_tensor_destroy(t);
	return st ? cli_error("layout", st) : 0;
}
