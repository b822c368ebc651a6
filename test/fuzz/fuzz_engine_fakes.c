/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A device layer without a device, for the engine fuzzers
 * (fuzz_engine_rx.c, fuzz_local_rx.c, fuzz_tss_rx.c): the functions of
 * dev/ the engine calls, answering from memory. Received frames come from
 * a queue the fuzzer fills; sent frames are counted and kept for a look;
 * the clock, the control block and the keys are the fuzzer's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dev/uet_dev_client.h"
#include "dev/uet_mirror.h"
#include "dev/uet_nl.h"
#include "dev/uet_xdp_ctl.h"
#include "dev/uet_xsk.h"
#include "fuzz_engine_fakes.h"

struct uet_xsk {
	int unused;
};

static struct uet_xsk fake_xsk_obj;
struct fake_dev fake_dev;

/* The engine's clock (uet_engine.c is built with clock_gettime renamed). */
int fake_clock_gettime(clockid_t id, struct timespec *ts)
{
	(void)id;
	ts->tv_sec = (time_t)(fake_dev.now_ns / 1000000000ull);
	ts->tv_nsec = (long)(fake_dev.now_ns % 1000000000ull);
	return 0;
}

int uet_dev_ep_open(const char *ifname, uint32_t job_id, uint16_t pid_on_fep,
		    uint32_t queue, struct uet_dev_ep *ep, char *why,
		    size_t why_len)
{
	(void)ifname;
	(void)queue;
	(void)why;
	(void)why_len;
	memset(ep, 0, sizeof(*ep));
	ep->conn = -1;
	ep->xsk = &fake_xsk_obj;
	ep->rep.ep = FAKE_EP_INDEX;
	ep->rep.pid_on_fep = pid_on_fep == UET_DEV_PID_ANY ? FAKE_PID : pid_on_fep;
	ep->rep.udp_port = 4793;
	ep->rep.job_id = job_id;
	ep->ep_bits = UET_FEP_EP_BITS;	/* as a default load */
	return 0;
}

void uet_dev_ep_close(struct uet_dev_ep *ep)
{
	ep->xsk = NULL;
}

/* No service to lose: the fake endpoint never had a connection. */
int uet_dev_ep_watch(struct uet_dev_ep *ep, uint64_t now_ns)
{
	(void)ep;
	(void)now_ns;
	return 0;
}

/* The keys the fuzzer gives, else no secure domain: in clear. */
int uet_dev_tss_keys(int conn, struct uet_tss_sd_keys *keys, char *why,
		     size_t why_len)
{
	(void)conn;
	(void)why;
	(void)why_len;
	if (!fake_dev.tss_keys)
		return -ENOKEY;
	*keys = *fake_dev.tss_keys;
	return 0;
}

/* The fuzzer's control block, else none: no local channels. */
struct uet_dev_shm *uet_xsk_shm(const struct uet_xsk *x)
{
	(void)x;
	return fake_dev.shm;
}

int uet_fep_steer_pds(const struct uet_dev_shm *shm, const uint8_t *pds,
		      size_t len)
{
	(void)shm;
	(void)pds;
	(void)len;
	return 0;
}

int uet_nl_if_mac(int ifindex, uint8_t mac[6])
{
	static const uint8_t ours[6] = { 0x02, 0, 0, 0, 0, 0x01 };

	(void)ifindex;
	memcpy(mac, ours, 6);
	return 0;
}

int uet_nl_if_mtu(int ifindex)
{
	(void)ifindex;
	return 1500;
}

/* The neighbour table: every address the fuzzer calls known. */
int uet_nl_resolve(const void *dst, bool is_v6, int timeout_ms,
		   struct uet_nl_route *route)
{
	(void)timeout_ms;
	memset(route, 0, sizeof(*route));
	route->is_v6 = is_v6;
	route->ifindex = fake_dev.ifindex;
	fake_neigh_mac(dst, is_v6, route->mac);
	return 0;
}

int uet_xdp_maps_open(const char *ifname, struct uet_xdp_maps *m)
{
	(void)ifname;
	(void)m;
	return -ENOENT;	/* no capture mirror */
}

void uet_xdp_maps_close(struct uet_xdp_maps *m)
{
	(void)m;
}

int uet_mirror_open(struct uet_mirror *m, const char *ifname, int ifindex,
		    int config_fd)
{
	(void)ifname;
	(void)ifindex;
	(void)config_fd;
	m->sock = -1;
	return -ENOENT;
}

void uet_mirror_close(struct uet_mirror *m)
{
	m->sock = -1;
}

void uet_mirror_frame(struct uet_mirror *m, const uint8_t *frame, uint32_t len)
{
	(void)m;
	(void)frame;
	(void)len;
}

int uet_xsk_fd(const struct uet_xsk *x)
{
	(void)x;
	return -1;
}

uint32_t uet_xsk_frame_max(const struct uet_xsk *x)
{
	(void)x;
	return FAKE_FRAME_MAX;
}

void uet_xsk_set_local_mac(struct uet_xsk *x, const uint8_t mac[6])
{
	(void)x;
	(void)mac;
}

bool uet_xsk_rx_idle(const struct uet_xsk *x)
{
	(void)x;
	return fake_dev.rx_head >= fake_dev.rx_cnt;
}

/* The fake ring's frames still to read, of a ring as large as they are. */
uint32_t uet_xsk_rx_backlog(const struct uet_xsk *x, uint32_t *size)
{
	(void)x;
	*size = fake_dev.rx_cnt;
	return fake_dev.rx_cnt - fake_dev.rx_head;
}

/* One process, one thread: the fuzzer's control block needs no lock. */
int uet_dev_shm_lock(struct uet_dev_shm *s)
{
	return s && s == fake_dev.shm ? 0 : -ENOENT;
}

/* Figures for `uetctl top`: nobody reads them here. */
void uet_dev_pub_write(struct uet_dev_ep_pub *p,
		       const struct uet_dev_ep_counters *c)
{
	(void)p;
	(void)c;
}

int uet_xsk_stats_read(struct uet_xsk *x, struct uet_xsk_stats *st)
{
	(void)x;
	memset(st, 0, sizeof(*st));
	return 0;
}

void uet_dev_shm_unlock(struct uet_dev_shm *s)
{
	(void)s;
}

uint32_t uet_xsk_rx_burst(struct uet_xsk *x, struct uet_xsk_frame *frames,
			  uint32_t max)
{
	uint32_t n = 0;

	(void)x;
	while (n < max && fake_dev.rx_head < fake_dev.rx_cnt) {
		struct fake_frame *f = &fake_dev.rx[fake_dev.rx_head++];

		memset(&frames[n], 0, sizeof(frames[n]));
		frames[n].len = f->len;
		frames[n].nsegs = 1;
		frames[n].seg[0] = f->buf;
		frames[n].seg_len[0] = f->len;
		n++;
	}
	return n;
}

void uet_xsk_rx_release(struct uet_xsk *x, struct uet_xsk_frame *frames,
			uint32_t n)
{
	(void)x;
	(void)frames;
	(void)n;
}

int uet_xsk_tx_alloc(struct uet_xsk *x, uint32_t len, struct uet_xsk_frame *f)
{
	(void)x;
	if (len > FAKE_FRAME_MAX)
		return -EMSGSIZE;
	memset(f, 0, sizeof(*f));
	f->nsegs = 1;
	f->seg[0] = fake_dev.tx_buf[fake_dev.tx_next++ % FAKE_TX_BUFS];
	f->seg_len[0] = FAKE_FRAME_MAX;
	f->len = len;
	return 0;
}

void uet_xsk_frame_write(struct uet_xsk_frame *f, uint32_t off,
			 const void *src, uint32_t n)
{
	memcpy(f->seg[0] + off, src, n);
}

/* A sent frame: counted, and its length checked against the buffer. */
int uet_xsk_tx_submit(struct uet_xsk *x, struct uet_xsk_frame *f, uint32_t len)
{
	(void)x;
	if (len > FAKE_FRAME_MAX)
		abort();
	fake_dev.tx_frames++;
	fake_tx_seen(f->seg[0], len);
	return 0;
}

void uet_xsk_tx_free(struct uet_xsk *x, struct uet_xsk_frame *f)
{
	(void)x;
	(void)f;
}

int uet_xsk_tx_kick(struct uet_xsk *x)
{
	(void)x;
	return 0;
}

bool uet_xsk_tx_needs_kick(const struct uet_xsk *x)
{
	(void)x;
	return false;
}

bool uet_xsk_link_down(const struct uet_xsk *x)
{
	(void)x;
	return false;
}

/* The engine's seeds: fixed, so that an input replays the same run. */
ssize_t fake_getrandom(void *buf, size_t len, unsigned int flags)
{
	(void)flags;
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)(0x5b + 13 * i);
	return (ssize_t)len;
}
