/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target for the engine's receive path (issue 14) with a
 * spoofed-source model: whole Ethernet frames from a few real hosts and
 * from random forged ones (any source IP, any source MAC), built from the
 * input so that most pass the outer checks, some as raw PDS bytes, hit a
 * live target engine (the device layer is fake_*: fuzz_engine_fakes.c)
 * while time passes in steps of up to seconds.
 *
 * Checked after every step, besides memory safety (fe_check,
 * fuzz_engine_common.c):
 * - no byte outside the registered region and the posted receive
 *   changed (guards around both, and the rest of the arena);
 * - the state stays bounded: PDCs within the manager's table, live
 *   state bytes within what that table can hold, provisional and live
 *   peers within their caps;
 * - every frame sent goes to the layer-2 address the neighbour table
 *   gives for its destination IP, never to a MAC a frame came with.
 */
#include <stdint.h>

#include "fuzz_engine_common.h"

#define F_STEPS		256

static void f_step_frame(struct fe_in *in, bool raw)
{
	struct uet_frame_addr src;
	uint8_t pds[512];
	size_t n = 0;

	fe_source(in, &src);
	if (raw) {
		size_t want = fe_u8(in);

		while (n < want && n < sizeof(pds))
			pds[n++] = fe_u8(in);
	} else {
		n = fe_build_req(in, pds, sizeof(pds));
	}
	if (n)
		fe_queue(&src, NULL, pds, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fe_in in = { data, len, 0 };

	fe_setup(NULL, NULL, NULL);
	for (int step = 0; step < F_STEPS && in.pos < in.len; step++) {
		uint8_t op = fe_u8(&in);

		fake_dev.rx_head = fake_dev.rx_cnt = 0;
		switch (op % 8) {
		case 0: case 1: case 2: case 3: case 4:
			f_step_frame(&in, false);
			break;
		case 5:
			f_step_frame(&in, true);
			break;
		case 6:	/* up to 6.5 s */
			fake_dev.now_ns += (uint64_t)fe_u16(&in) * 100000;
			break;
		default:	/* a burst of requests, as a flood comes */
			for (int i = fe_u8(&in) % 32; i >= 0; i--)
				f_step_frame(&in, false);
			break;
		}
		fake_dev.now_ns += 1000;
		uet_engine_progress(fe_eng);
		fe_check();
	}
	fe_teardown();
	return 0;
}
