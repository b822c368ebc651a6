/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TSS in the running service (uetd_tss.h): the keys an endpoint asks for
 * (UET_DEV_TSS) with epochs of its own, the reload on SIGHUP, the XDP
 * program's SDI map, and the secured frames that reach the service's
 * sockets, whose headers it decrypts (never more) to find their endpoint.
 *
 * SSI (an SD's "ssi"): an endpoint's is the low 16 bits of the
 * interface's first IPv4 address (its ifindex when it has none), shifted
 * up 16, with the endpoint index below: unique on the interface, and
 * across interfaces of distinct addresses.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <openssl/crypto.h>

#include "dev/uet_fep_steer.h"
#include "dev/uet_frame.h"
#include "tools/uetd.h"
#include "tools/uetd_tss.h"
#include "tools/uetd_tss_xdp.h"
#include "uet_xdp_shared.h"

/* What the service gave endpoint index i: kept while its keys stay. */
struct uetd_tss_given {
	uint32_t sdi;
	uint8_t have;
	uint8_t fp[2][UETD_TSS_FP_LEN];
	uint16_t epoch[2];
};

struct uetd_tss {
	char path[256];
	char state_path[256];
	bool must_exist;
	struct uetd_tss_conf conf;
	struct uetd_tss_state state;
	/* Per SD of conf: a receiver's context to peek at headers with. */
	struct uet_tss_ep **peek;
	struct uetd_tss_given given[UET_FEP_MAX_EPS];
	int sdi_map;
	/* Contexts for XDP to read headers with (NULL before start). */
	struct uetd_tss_xdp *xdp;
	uint64_t xdp_streams;	/* cluster streams given a context */
	uint64_t handed_on, no_sd, unsteerable, ep_closed, reloads,
		 reload_failed;
	uint64_t refused;
};

/* The peeking contexts of every SD (after a load or a reload). */
static void uetd_tss_peek_build(struct uetd *d)
{
	struct uetd_tss *t = d->tss;
	struct uet_tss_src none = { 0 };

	t->peek = calloc(t->conf.nsd ? t->conf.nsd : 1, sizeof(*t->peek));
	for (uint32_t i = 0; t->peek && i < t->conf.nsd; i++) {
		const struct uetd_tss_sd *sd = &t->conf.sd[i];
		struct uet_tss_sd_keys k = {
			.sdi = sd->sdi, .mode = sd->mode, .tx_an = sd->active,
			.have = sd->have,
		};

		memcpy(k.key, sd->key, sizeof(k.key));
		t->peek[i] = uet_tss_ep_new(&k, &none);
		if (!t->peek[i])
			uetd_log(d, "TSS: SD %u: no receive context (%s): its "
				 "frames to the service are dropped", sd->sdi,
				 strerror(errno));
		OPENSSL_cleanse(&k, sizeof(k));
	}
}

static void uetd_tss_peek_free(struct uetd_tss *t, uint32_t nsd)
{
	for (uint32_t i = 0; t->peek && i < nsd; i++)
		uet_tss_ep_free(t->peek[i]);
	free(t->peek);
	t->peek = NULL;
}

int uetd_tss_init(struct uetd *d, const char *keys, const char *state)
{
	struct uetd_tss *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return -ENOMEM;
	d->tss = t;
	t->sdi_map = -1;
	t->must_exist = keys != NULL;
	snprintf(t->path, sizeof(t->path), "%s", keys ? keys : UETD_TSS_FILE);
	if (state)
		snprintf(t->state_path, sizeof(t->state_path), "%s", state);
	else
		snprintf(t->state_path, sizeof(t->state_path),
			 UETD_TSS_STATE_FMT, d->ifname);
	ret = uetd_tss_conf_load(&t->conf, t->path, d->why, sizeof(d->why));
	if (ret == -ENOENT && !t->must_exist) {
		d->why[0] = '\0';
		return 0;	/* no TSS here until a reload finds a file */
	}
	if (ret < 0)
		return ret;
	ret = uetd_tss_state_load(&t->state, t->state_path, d->why,
				  sizeof(d->why));
	if (ret < 0)
		return ret;
	uetd_tss_peek_build(d);
	uetd_log(d, "TSS keys %s: %u secure domain(s); epochs in %s", t->path,
		 t->conf.nsd, t->state.path);
	return 0;
}

void uetd_tss_fini(struct uetd *d, bool keep_xdp)
{
	struct uetd_tss *t = d->tss;

	if (!t)
		return;
	uetd_tss_peek_free(t, t->conf.nsd);
	uetd_tss_conf_free(&t->conf);
	uetd_tss_state_free(&t->state);
	uetd_tss_xdp_free(t->xdp, !keep_xdp);
	if (t->sdi_map >= 0)
		close(t->sdi_map);
	OPENSSL_cleanse(t, sizeof(*t));
	free(t);
	d->tss = NULL;
}

static bool uetd_tss_sd_has(const struct uetd_tss_sd *sd, uint32_t job)
{
	for (uint32_t i = 0; i < sd->nranges; i++)
		if (job >= sd->range[i].lo && job <= sd->range[i].hi)
			return true;
	return false;
}

/*
 * The value for an SD with several endpoints here: XDP reads the headers
 * when the kernel lets it (a direct-mode SD's contexts made now, a
 * cluster-mode SD's as its streams come), else the service does.
 */
static uint32_t uetd_tss_sdi_shared(struct uetd *d,
				    const struct uetd_tss_sd *sd)
{
	static const uint8_t no_mask[UET_TSS_IV_LEN];
	struct uetd_tss *t = d->tss;

	if (!uetd_tss_xdp_on(t->xdp))
		return UET_FEP_EP_SERVICE;
	if (sd->mode != UET_TSS_DIRECT)
		return UET_FEP_EP_SERVICE | UET_XDP_SDI_READ_STREAM;
	for (uint8_t an = 0; an < 2; an++) {
		if (!(sd->have & (1u << an)))
			continue;
		if (uetd_tss_xdp_add(t->xdp, sd->sdi, an, NULL, NULL,
				     sd->key[an], no_mask) < 0) {
			uetd_log(d, "TSS: SD %u: no XDP context for AN %u: "
				 "the service steers its frames", sd->sdi, an);
			return UET_FEP_EP_SERVICE;
		}
	}
	return UET_FEP_EP_SERVICE | UET_XDP_SDI_READ_SD;
}

/*
 * Indices of a taken-over pool whose owner has not come back yet
 * (uetd_takeover.c): of an SD we cannot tell until it does.
 */
static uint32_t uetd_tss_awaited(const struct uetd *d)
{
	uint32_t n = 0;

	if (!d->adopted || !d->shm)
		return 0;
	for (uint32_t i = 1; i < d->layout.max_eps; i++)
		n += d->eps[i].conn < 0 &&
		     d->shm->slot[i].state == UET_DEV_SLOT_ACTIVE;
	return n;
}

/*
 * uet_xdp_sdi as the endpoints open now need it: an SD with one endpoint
 * goes to it, one with several to whoever reads its headers (above), one
 * with none (or gone from the file) nowhere. While endpoints of a
 * takeover are still to come back, an SD with one endpoint back is read
 * as one with several: every sealed frame of the SD sent to the first one
 * back would give it the others' frames too, which it answers NACK
 * INV_DPDCID for a PDC it does not know, failing their peers' PDCs.
 */
void uetd_tss_sdi_sync(struct uetd *d)
{
	struct uetd_tss *t = d->tss;
	uint32_t keys[UET_XDP_MAX_SDS], n = 0, key, *prev = NULL;
	uint32_t awaited = uetd_tss_awaited(d);

	if (!t || t->sdi_map < 0)
		return;
	while (n < UET_XDP_MAX_SDS &&
	       bpf_map_get_next_key(t->sdi_map, prev, &key) == 0) {
		keys[n] = key;
		prev = &keys[n++];
	}
	for (uint32_t i = 0; i < n; i++)
		if (!uetd_tss_conf_sdi(&t->conf, keys[i]))
			bpf_map_delete_elem(t->sdi_map, &keys[i]);
	for (uint32_t s = 0; s < t->conf.nsd; s++) {
		const struct uetd_tss_sd *sd = &t->conf.sd[s];
		uint32_t eps = 0, ep = UET_FEP_EP_SERVICE;

		for (uint32_t i = 1; i < d->layout.max_eps; i++)
			if (d->eps[i].conn >= 0 &&
			    uetd_tss_sd_has(sd, d->eps[i].job_id)) {
				eps++;
				ep = i;
			}
		if (!eps) {
			bpf_map_delete_elem(t->sdi_map, &sd->sdi);
			continue;
		}
		if (eps > 1 || awaited)
			ep = uetd_tss_sdi_shared(d, sd);
		if (bpf_map_update_elem(t->sdi_map, &sd->sdi, &ep, BPF_ANY))
			uetd_log(d, "TSS: SD %u: steering entry: %s", sd->sdi,
				 strerror(errno));
	}
}

int uetd_tss_start(struct uetd *d)
{
	struct uetd_tss *t = d->tss;

	const char *xdp = getenv("UET_TSS_XDP");
	char how[256];

	if (xdp && strcmp(xdp, "auto") && strcmp(xdp, "off")) {
		snprintf(d->why, sizeof(d->why),
			 "UET_TSS_XDP=%s: must be auto or off", xdp);
		return -EINVAL;
	}
	t->sdi_map = uet_xdp_map_open(d->ifname, "uet_xdp_sdi");
	if (t->sdi_map < 0)
		return t->sdi_map;
	t->xdp = uetd_tss_xdp_new(d->ifname, xdp);
	if (!t->xdp)
		return -ENOMEM;
	uetd_tss_xdp_describe(t->xdp, how, sizeof(how));
	uetd_log(d, "TSS: frames of SDs with several endpoints here are "
		 "steered %s", how);
	uetd_tss_sdi_sync(d);
	return 0;
}

void uetd_tss_ep_changed(struct uetd *d, uint32_t ep)
{
	if (!d->tss)
		return;
	if (d->eps[ep].conn < 0)
		memset(&d->tss->given[ep], 0, sizeof(d->tss->given[ep]));
	uetd_tss_sdi_sync(d);
}

void uetd_tss_reload(struct uetd *d)
{
	struct uetd_tss *t = d->tss;
	struct uetd_tss_conf c = { 0 };
	char err[sizeof(d->why)];
	uint32_t old_nsd = t->conf.nsd;
	int ret;

	ret = uetd_tss_conf_load(&c, t->path, err, sizeof(err));
	if (ret < 0) {
		t->reload_failed++;
		uetd_log(d, "reload: %s; the keys read before stay", err);
		return;
	}
	/* The first file since start: its epochs need the state too. */
	if (!t->state.path[0]) {
		ret = uetd_tss_state_load(&t->state, t->state_path, err,
					  sizeof(err));
		if (ret < 0) {
			t->reload_failed++;
			uetd_log(d, "reload: %s", err);
			uetd_tss_conf_free(&c);
			return;
		}
	}
	uetd_tss_peek_free(t, old_nsd);
	uetd_tss_conf_free(&t->conf);
	t->conf = c;
	/* Contexts of old keys go; sync and new streams make the new. */
	uetd_tss_xdp_flush(t->xdp);
	uetd_tss_peek_build(d);
	t->reloads++;
	/* Endpoints ask again for their keys when they see it move. */
	__atomic_store_n(&d->shm->tss_gen,
			 __atomic_load_n(&d->shm->tss_gen, __ATOMIC_RELAXED) +
			 1, __ATOMIC_RELEASE);
	uetd_tss_sdi_sync(d);
	uetd_log(d, "reload: TSS keys %s: %u secure domain(s), generation %u",
		 t->path, t->conf.nsd, d->shm->tss_gen);
}

/* The SSI of endpoint |ep| (see the top of this file). */
static uint32_t uetd_tss_ssi(const struct uetd *d, uint32_t ep)
{
	uint32_t low = (uint32_t)d->ifindex & 0xFFFF;
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa) == 0) {
		for (i = ifa; i; i = i->ifa_next)
			if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
			    !strcmp(i->ifa_name, d->ifname)) {
				struct sockaddr_in *sin = (void *)i->ifa_addr;

				low = ntohl(sin->sin_addr.s_addr) & 0xFFFF;
				break;
			}
		freeifaddrs(ifa);
	}
	return low << 16 | (ep & 0xFFFF);
}

/* Endpoint |ep|'s epochs under |sd|'s keys: those it had, or new ones. */
static int uetd_tss_epochs(struct uetd *d, uint32_t ep,
			   const struct uetd_tss_sd *sd, uint16_t epoch[2])
{
	struct uetd_tss_given *g = &d->tss->given[ep], n = { .sdi = sd->sdi };

	for (uint8_t an = 0; an < 2; an++) {
		int ret;

		if (!(sd->have & (1u << an)))
			continue;
		memcpy(n.fp[an], sd->fp[an], UETD_TSS_FP_LEN);
		n.have |= (uint8_t)(1u << an);
		if (g->sdi == sd->sdi && (g->have & (1u << an)) &&
		    !memcmp(g->fp[an], sd->fp[an], UETD_TSS_FP_LEN)) {
			n.epoch[an] = g->epoch[an];
			continue;
		}
		ret = uetd_tss_epoch_alloc(&d->tss->state, sd->sdi, an,
					   sd->fp[an], &n.epoch[an]);
		if (ret < 0)
			return ret;
	}
	*g = n;
	memcpy(epoch, n.epoch, sizeof(n.epoch));
	return 0;
}

void uetd_tss_request(struct uetd *d, uint32_t ep)
{
	struct uetd_tss *t = d->tss;
	const struct uetd_ep *e = &d->eps[ep];
	const struct uetd_tss_sd *sd = t ? uetd_tss_conf_job(&t->conf,
							      e->job_id) : NULL;
	struct uet_dev_tss_rep rep = { .status = -ENOKEY };
	int ret;

	if (!sd) {
		snprintf(rep.msg, sizeof(rep.msg), "JobID %u is in no secure "
			 "domain of the TSS keys of uetd %s", e->job_id,
			 d->ifname);
		goto out;
	}
	ret = uetd_tss_epochs(d, ep, sd, rep.keys.epoch);
	if (ret < 0) {
		rep.status = ret;
		if (ret == -EKEYEXPIRED)
			snprintf(rep.msg, sizeof(rep.msg), "the epochs of a key "
				 "are spent: rotate the key of SD %u", sd->sdi);
		else
			snprintf(rep.msg, sizeof(rep.msg), "the service "
				 "cannot keep its TSS state: %s",
				 strerror(-ret));
		goto out;
	}
	rep.status = 0;
	rep.keys.sdi = sd->sdi;
	rep.keys.mode = sd->mode;
	rep.keys.tx_an = sd->active;
	rep.keys.have = sd->have;
	rep.keys.use_ssi = sd->use_ssi;
	rep.keys.ssi = sd->use_ssi ? uetd_tss_ssi(d, ep) : 0;
	rep.keys.gen = __atomic_load_n(&d->shm->tss_gen, __ATOMIC_ACQUIRE);
	memcpy(rep.keys.key, sd->key, sizeof(rep.keys.key));
out:
	if (rep.status < 0) {
		if (t)
			t->refused++;
		uetd_log(d, "endpoint %u: no TSS keys: %s", ep, rep.msg);
	} else {
		uetd_log(d, "endpoint %u: TSS keys of SD %u, epochs %u/%u, "
			 "generation %u", ep, sd->sdi, rep.keys.epoch[0],
			 rep.keys.epoch[1], rep.keys.gen);
	}
	uetd_send(e->conn, &rep, sizeof(rep), NULL, 0);
	OPENSSL_cleanse(&rep, sizeof(rep));
}

/* The longest secured UDP payload the service opens (jumbo frames). */
#define UETD_TSS_OPEN_MAX	16384

/*
 * The stream of a cluster-mode frame that reached the service gets a
 * context, so that XDP reads its next frames' headers. Only an authentic
 * frame's: a forger could otherwise fill the contexts' map with streams
 * of its making and push the real ones out.
 */
static void uetd_tss_stream_add(struct uetd *d, const struct uetd_tss_sd *sd,
				struct uet_tss_ep *peek,
				const struct uet_tss_pkt *pkt,
				const uint8_t *p, size_t plen)
{
	static uint8_t out[UETD_TSS_OPEN_MAX];
	struct uet_tss_keymat km;
	struct uet_tss_src src = { .is_v6 = pkt->is_v6 };
	struct uet_tss_hdr h;
	ssize_t n;

	if (plen > sizeof(out) || uet_tss_hdr_decode(&h, p, plen) < 0 ||
	    !(sd->have & (1u << h.an)))
		return;
	n = uet_tss_ep_open(peek, pkt, p, plen, out);
	OPENSSL_cleanse(out, n > 0 ? (size_t)n : 0);
	if (n < 0)
		return;
	memcpy(src.addr, pkt->saddr, pkt->is_v6 ? 16 : 4);
	if (uet_tss_derive(&km, UET_TSS_CLUSTER, sd->key[h.an], &h, &src,
			   0) < 0)
		return;
	if (uetd_tss_xdp_add(d->tss->xdp, sd->sdi, h.an, &h, &src, km.key,
			     km.iv_mask) == 0)
		d->tss->xdp_streams++;
	OPENSSL_cleanse(&km, sizeof(km));
}

/*
 * The key material of the XDP context key |k| (uetd_tss_km_fn): the SD
 * key of its (SDI, AN) in direct mode, the stream's derived one in
 * cluster mode, as uetd_tss_xdp_add() was given them.
 */
static int uetd_tss_ks_km(void *arg, const struct uet_xdp_tss_key *k,
			  struct uet_tss_keymat *km)
{
	struct uetd *d = arg;
	const struct uetd_tss_sd *sd;
	struct uet_tss_hdr h = { .sdi = k->sdi_an & 0xFFFFFFu,
				 .an = (uint8_t)(k->sdi_an >> 24),
				 .sp = k->sp, .epoch = k->epoch };
	struct uet_tss_src src = { .is_v6 = k->is_v6 };

	sd = uetd_tss_conf_sdi(&d->tss->conf, h.sdi);
	if (!sd || h.an > 1 || !(sd->have & (1u << h.an)))
		return -ENOKEY;
	if (h.sp)
		h.ssi = (uint32_t)k->src[0] << 24 | (uint32_t)k->src[1] << 16 |
			(uint32_t)k->src[2] << 8 | k->src[3];
	memcpy(src.addr, k->src, sizeof(src.addr));
	return uet_tss_derive(km, sd->mode, sd->key[h.an], &h, &src, 0);
}

int uetd_tss_ks_fd(const struct uetd *d)
{
	return d->tss ? uetd_tss_xdp_ks_fd(d->tss->xdp) : -1;
}

void uetd_tss_ks_serve(struct uetd *d)
{
	if (d->tss)
		uetd_tss_xdp_ks_serve(d->tss->xdp, uetd_tss_ks_km, d);
}

bool uetd_tss_wants_whole(const struct uetd *d)
{
	const struct uetd_tss *t = d->tss;

	if (!t || !uetd_tss_xdp_on(t->xdp))
		return false;
	for (uint32_t s = 0; s < t->conf.nsd; s++)
		if (t->conf.sd[s].mode == UET_TSS_CLUSTER)
			return true;
	return false;
}

/*
 * A secured frame that reached the service (several endpoints share its
 * SD, or its endpoint is on another queue): its SD's keys decrypt the
 * PDS and SES headers (64 bytes at most, checking nothing: the endpoint
 * authenticates the frame), which name the endpoint as for a clear frame.
 * The plaintext goes nowhere.
 */
#define UETD_TSS_PEEK	64

int uetd_tss_rx_owner(struct uetd *d, const uint8_t *frame, size_t len,
		      size_t frame_len)
{
	struct uetd_tss *t = d->tss;
	struct uet_frame_info info;
	struct uet_tss_pkt pkt;
	uint8_t out[UETD_TSS_PEEK];
	const uint8_t *p;
	size_t plen, hl, want;
	ssize_t n;
	uint32_t sdi, s;
	int ep;

	if (uet_frame_decode(&info, frame, len, frame_len) < 0)
		return -1;
	p = frame + info.hdr_len;
	plen = info.payload_len < len - info.hdr_len ? info.payload_len :
						       len - info.hdr_len;
	if (!uet_tss_is_tss(p, plen))
		return -1;
	hl = uet_tss_hdr_len(p[0] & 0x04);
	if (!t || plen < hl || info.payload_len < hl + UET_TSS_ICV_LEN) {
		if (t)
			t->unsteerable++;
		return 0;
	}
	sdi = (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	for (s = 0; s < t->conf.nsd && t->conf.sd[s].sdi != sdi; s++)
		;
	if (s == t->conf.nsd) {
		t->no_sd++;
		return 0;
	}
	want = info.payload_len - hl - UET_TSS_ICV_LEN;
	if (want > plen - hl)
		want = plen - hl;
	if (want > UETD_TSS_PEEK)
		want = UETD_TSS_PEEK;
	pkt = (struct uet_tss_pkt){
		.is_v6 = info.src.is_v6,
		.saddr = info.src.is_v6 ? (const uint8_t *)&info.src.v6 :
					  (const uint8_t *)&info.src.v4,
		.daddr = info.dst.is_v6 ? (const uint8_t *)&info.dst.v6 :
					  (const uint8_t *)&info.dst.v4,
		.sport = info.src.port, .dport = info.dst.port,
	};
	n = t->peek && t->peek[s] ?
	    uet_tss_ep_peek(t->peek[s], &pkt, p, plen, out, want) : -ENOKEY;
	ep = n > 0 ? uet_fep_steer_pds(d->shm, out, (size_t)n) : 0;
	OPENSSL_cleanse(out, sizeof(out));
	/* Only to an endpoint of the frame's SD: no other could open it. */
	if (ep <= 0 || (uint32_t)ep >= d->layout.max_eps ||
	    d->eps[ep].conn < 0 ||
	    !uetd_tss_sd_has(&t->conf.sd[s], d->eps[ep].job_id)) {
		/*
		 * Late frames of a job's teardown, ACKs and resends for an
		 * endpoint that closed within UETD_SLOT_REST_NS (its index,
		 * in their PDC ids, still rests), are counted apart: they
		 * are not frames the service failed to steer.
		 */
		if (ep > 0 && (uint32_t)ep < d->layout.max_eps &&
		    d->eps[ep].conn < 0 &&
		    d->eps[ep].rest_until > uetd_now_ns())
			t->ep_closed++;
		else
			t->unsteerable++;
		return 0;
	}
	t->handed_on++;
	if (t->conf.sd[s].mode == UET_TSS_CLUSTER &&
	    uetd_tss_xdp_on(t->xdp) && info.payload_len == plen)
		uetd_tss_stream_add(d, &t->conf.sd[s], t->peek[s], &pkt, p,
				    plen);
	return ep;
}

size_t uetd_tss_stats(const struct uetd *d, char *buf, size_t len)
{
	const struct uetd_tss *t = d->tss;
	char how[256];
	int n;

	if (!t)
		return 0;
	uetd_tss_xdp_describe(t->xdp, how, sizeof(how));
	n = snprintf(buf, len, "tss: %u secure domains (%s), "
		     "generation %u, %llu reloads (%llu failed), "
		     "%llu key requests refused; secured frames at the "
		     "service: %llu handed on, %llu of no SD here, "
		     "%llu unsteerable, %llu for an endpoint just "
		     "closed\ntss: frames of SDs with "
		     "several endpoints here are steered %s; %llu "
		     "cluster streams given a context\n", t->conf.nsd,
		     t->path,
		     d->shm->tss_gen, (unsigned long long)t->reloads,
		     (unsigned long long)t->reload_failed,
		     (unsigned long long)t->refused,
		     (unsigned long long)t->handed_on,
		     (unsigned long long)t->no_sd,
		     (unsigned long long)t->unsteerable,
		     (unsigned long long)t->ep_closed, how,
		     (unsigned long long)t->xdp_streams);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

void uetd_tss_stats_fill(const struct uetd *d, struct uet_dev_stats *st)
{
	const struct uetd_tss *t = d->tss;

	if (!t)
		return;
	st->flags |= UET_DEV_STATS_TSS;
	st->tss_sds = t->conf.nsd;
	st->tss_gen = d->shm->tss_gen;
	st->tss_xdp_read = uetd_tss_xdp_on(t->xdp);
	st->tss_reloads = t->reloads;
	st->tss_reload_failed = t->reload_failed;
	st->tss_refused = t->refused;
	st->tss_handed_on = t->handed_on;
	st->tss_no_sd = t->no_sd;
	st->tss_unsteerable = t->unsteerable;
	st->tss_ep_closed = t->ep_closed;
	st->tss_xdp_streams = t->xdp_streams;
}
