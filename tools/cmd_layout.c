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
static void grid_axes(const tilecopy_tensor_t *t, int *row, int *col)
{
	const tilecopy_layout_t *l = &t->layout;
	int rank = l->rank, blocked[2], n = 0;

	for (int m = 0; m < rank && n < 2; m++)
		if (l->mode[m + 1] - l->mode[m] > 1)
			blocked[n++] = m;
	*col = n == 2 ? blocked[1] : rank - 1;
	if (n)
		*row = blocked[0] == *col ? -1 : blocked[0];
	else
		*row = rank >= 3 ? 1 : rank - 2;
}

void cli_draw(const tilecopy_tensor_t *t, FILE *out);
void cli_draw(const tilecopy_tensor_t *t, FILE *out)
{
	int64_t crd[TILECOPY_MAX_RANK] = { 0 }, off;
	int row, col, nr, nc, w = 1;
	int64_t maxoff = tilecopy_layout_cosize(&t->layout);

	grid_axes(t, &row, &col);
	nr = row < 0 ? 1 : (int)(t->extent[row] < GRID_MAX ? t->extent[row] : GRID_MAX);
	nc = (int)(t->extent[col] < GRID_MAX ? t->extent[col] : GRID_MAX);
	for (int64_t m = maxoff; m >= 10; m /= 10)
		w++;
	fprintf(out, "offsets (%s, rows = dim %d, cols = dim %d, other coordinates 0%s):\n",
		t->format, row < 0 ? 0 : row, col,
		(row >= 0 && t->extent[row] > GRID_MAX) || t->extent[col] > GRID_MAX ?
		", first 32 shown" : "");
	for (int r = 0; r < nr; r++) {
		for (int c = 0; c < nc; c++) {
			if (row >= 0)
				crd[row] = r;
			crd[col] = c;
			tilecopy_layout_crd2idx(&t->layout, crd, &off);
			fprintf(out, "%*" PRId64 "%s", w, off, c + 1 < nc ? " " : "");
		}
		fprintf(out, "%s\n", nc < t->extent[col] ? " ..." : "");
	}
	if (row >= 0 && nr < t->extent[row])
		fprintf(out, "...\n");
}

int cmd_layout(int argc, char **argv)
{
	struct cli_opts o;
	tilecopy_tensor_t t;
	char buf[1024];
	uint64_t bytes;
	tilecopy_status_t st;

	if (cli_parse(argc, argv, &o))
		return 2;
	if (o.nargs != 1) {
		fprintf(stderr, "usage: tilecopy layout FORMAT --shape S [--dtype T] [--block B]\n");
		return 2;
	}
	if (cli_tensor(&o, o.args[0], o.block, &t))
		return 1;
	st = tilecopy_layout_print(&t.layout, buf, sizeof(buf));
	if (st)
		return cli_error("layout", st);
	printf("%s\n", buf);
	cli_draw(&t, stdout);
	st = tilecopy_tensor_bytes(&t, &bytes);
	if (st)
		return cli_error("layout", st);
	printf("physical size: %" PRIu64 " bytes (%" PRIu64 " elements of %zu bytes)%s\n",
	       bytes, bytes / tilecopy_dtype_size(t.dtype),
	       tilecopy_dtype_size(t.dtype),
	       tilecopy_tensor_has_padding(&t) ? ", with padding" : "");
	return 0;
}
