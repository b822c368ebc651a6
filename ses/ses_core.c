/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SES engine's life cycle and shared plumbing: configuration, peers,
 * the tx upcall, deferred responses, progress and peer failure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ses/ses_priv.h"

#define SES_NS_PER_S		1000000000ull
/* 9 leaves 2^5 ids in flight per peer (include/uet_fep.h) */
#define SES_MAX_PREFIX_BITS	9

void ses_config_init(struct ses_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->payload_mtu = 4096;
	cfg->rdv_ri = SES_RI_NONE;
	/* ref 4: the reference provider switches to rendezvous above 8 KiB. */
	cfg->rdv_threshold = 8192;
	cfg->rdv_pull_threshold = UINT32_MAX;
	cfg->max_msgs = 4096;
	cfg->max_peers = 1024;
	cfg->max_rx_msgs = 4096;
	cfg->max_recvs = 4096;
	cfg->max_ri_tables = 256;
	cfg->max_mrs = 4096;
	cfg->max_unexpected = 1024;
	cfg->max_unexpected_len = 16u << 20;
	cfg->max_msg_len = 1u << 30;
	/* ref 4: the reference provider drops partial messages after 5 s. */
	cfg->rx_idle_ns = 5 * SES_NS_PER_S;
	/* The engine's target sends a lost answer again for 10 s. */
	cfg->rdv_answer_wait_ns = 12 * SES_NS_PER_S;
}

static bool ses_config_is_valid(const struct ses_config *c)
{
	uint32_t mtu = c->payload_mtu;

	return mtu >= UET_PAYLOAD_MTU_MIN && mtu <= UET_PAYLOAD_MTU_MAX &&
	       !(mtu & (mtu - 1)) && c->job_id <= UET_SES_JOB_ID_MAX &&
	       c->pid_on_fep <= UET_SES_PID_ON_FEP_MAX &&
	       (c->rdv_ri <= UET_SES_RI_MAX || c->rdv_ri == SES_RI_NONE) &&
	       c->rdv_eager_len <= mtu && c->rdv_eager_len <= c->rdv_threshold &&
	       c->max_msgs && c->max_peers && c->max_rx_msgs && c->max_recvs &&
	       c->max_ri_tables && c->max_mrs && c->max_ri_tables < 0xFFFF &&
	       c->msg_id_prefix_bits <= SES_MAX_PREFIX_BITS &&
	       c->msg_id_prefix < (1u << c->msg_id_prefix_bits);
}

static uint32_t ses_min(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * The id arithmetic of a prefix of n bits: sequences of 16 - n bits, of
 * which a quarter at most in flight, so that the target's done bits still
 * know a late copy for as many more (ses_priv.h).
 */
static void ses_init_ids(struct ses *s)
{
	uint32_t seq_bits = 16u - s->cfg.msg_id_prefix_bits;

	s->id_prefix = (uint16_t)(s->cfg.msg_id_prefix << seq_bits);
	s->id_seq_mask = (uint16_t)((1u << seq_bits) - 1);
	s->msg_window = ses_min(SES_MSG_WINDOW, 1u << (seq_bits - 2));
	s->rx_check = ses_min(SES_RX_WINDOW, 1u << (seq_bits - 1));
	s->id_rng = s->cfg.msg_id_seed;
}

/*
 * The first sequence to a new (or reset) peer: 1 without a seed, as the
 * seed numbers messages; else one drawn from it (splitmix64), never 0.
 */
static uint16_t ses_first_seq(struct ses *s)
{
	uint64_t z;

	if (!s->cfg.msg_id_seed)
		return 1;
	z = (s->id_rng += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return (uint16_t)(1 + z % s->id_seq_mask);
}

static int ses_init_state(struct ses *s)
{
	const struct ses_config *c = &s->cfg;

	if (ses_pool_init(&s->peers, sizeof(struct ses_peer), c->max_peers) ||
	    ses_map_init(&s->peer_map, 64) ||	/* grows with use */
	    ses_pool_init(&s->msgs, sizeof(struct ses_msg), c->max_msgs) ||
	    ses_map_init(&s->msg_map, c->max_msgs) ||
	    ses_pool_init(&s->tbls, sizeof(struct ses_ri_tbl),
			  c->max_ri_tables) ||
	    ses_pool_init(&s->mrs, sizeof(struct ses_region), c->max_mrs) ||
	    ses_map_init(&s->tbl_map, c->max_ri_tables) ||
	    ses_map_init(&s->mr_map, c->max_mrs) ||
	    ses_map_init(&s->job_map, 16) || ses_map_init(&s->pid_map, 16) ||
	    ses_pool_init(&s->rxms, sizeof(struct ses_rxm), c->max_rx_msgs) ||
	    ses_map_init(&s->rxm_map, c->max_rx_msgs) ||
	    ses_pool_init(&s->recvs, sizeof(struct ses_recv), c->max_recvs))
		return -ENOMEM;
	ses_list_init(&s->tx_pending);
	ses_list_init(&s->rx_active);
	ses_list_init(&s->posted[0]);
	ses_list_init(&s->posted[1]);
	ses_list_init(&s->ux);
	ses_list_init(&s->pull_pending);
	ses_list_init(&s->pulling);
	ses_list_init(&s->read_jobs);
	ses_list_init(&s->rsp_jobs);
	ses_list_init(&s->flush_holds);
	return 0;
}

struct ses *ses_create(const struct ses_config *cfg,
		       const struct ses_ops *ops, void *ctx)
{
	struct ses_ri_id rdv;
	struct ses *s;

	if (!cfg || !ops || !ops->tx || !ops->tx_done ||
	    !ses_config_is_valid(cfg)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->cfg = *cfg;
	s->ops = *ops;
	s->ctx = ctx;
	ses_init_ids(s);
	if (ses_init_state(s) < 0)
		goto err_destroy;
	if (cfg->rdv_ri != SES_RI_NONE) {
		rdv.job_id = cfg->job_id;
		rdv.pid_on_fep = cfg->pid_on_fep;
		rdv.ri = cfg->rdv_ri;
		/* Its keys are never reused, so generations add nothing. */
		if (ses_ri_add(s, &rdv, SES_RI_F_NO_GEN) < 0)
			goto err_destroy;
	}
	return s;

err_destroy:
	ses_destroy(s);
	errno = ENOMEM;
	return NULL;
}

static void ses_jobs_free(struct ses_list *h)
{
	while (!ses_list_is_empty(h)) {
		struct ses_list *n = h->next;

		ses_list_del(n);
		free(n);
	}
}

void ses_destroy(struct ses *s)
{
	uint32_t i;

	if (!s)
		return;
	/* Released items have their heap pointers cleared, so scan all. */
	for (i = 0; i < s->msgs.len; i++)
		ses_blkmap_fini(&((struct ses_msg *)ses_pool_at(&s->msgs, i))->blk);
	for (i = 0; i < s->rxms.len; i++) {
		struct ses_rxm *m = ses_pool_at(&s->rxms, i);

		ses_blkmap_fini(&m->blk);
		free(m->ux_buf);
		free(m->rdv);
		free(m->rdmo);
	}
	ses_rdv_spares_free(s);
	/* Forgotten peers have rx_refused and win cleared, so scan all. */
	for (i = 0; i < s->peers.len; i++) {
		struct ses_peer *p = ses_pool_at(&s->peers, i);

		free(p->rx_refused);
		free(p->win);
	}
	ses_rdmo_fini(s);
	ses_jobs_free(&s->read_jobs);
	ses_jobs_free(&s->rsp_jobs);
	ses_pool_fini(&s->peers);
	ses_map_fini(&s->peer_map);
	free(s->peer_dir);
	ses_pool_fini(&s->msgs);
	ses_map_fini(&s->msg_map);
	ses_pool_fini(&s->tbls);
	ses_pool_fini(&s->mrs);
	ses_map_fini(&s->tbl_map);
	ses_map_fini(&s->mr_map);
	ses_map_fini(&s->job_map);
	ses_map_fini(&s->pid_map);
	ses_pool_fini(&s->rxms);
	ses_map_fini(&s->rxm_map);
	ses_pool_fini(&s->recvs);
	free(s);
}

struct ses_peer *ses_peer_find(struct ses *s, uint32_t id)
{
	uint32_t idx;

	if (s->last_peer && s->last_peer->id == id)
		return s->last_peer;
	if (id < SES_PEER_DIR_MAX) {
		if (id >= s->peer_dir_len || !s->peer_dir[id])
			return NULL;
		idx = s->peer_dir[id] - 1;
	} else if (!ses_map_get(&s->peer_map, id, &idx)) {
		return NULL;
	}
	s->last_peer = ses_pool_at(&s->peers, idx);
	return s->last_peer;
}

/* Files peer |id| at pool index |idx|. Returns 0 or -ENOMEM. */
static int ses_peer_file(struct ses *s, uint32_t id, uint32_t idx)
{
	uint32_t len = s->peer_dir_len ? s->peer_dir_len : 64;
	uint32_t *dir;

	if (id >= SES_PEER_DIR_MAX)
		return ses_map_put(&s->peer_map, id, idx);
	if (id >= s->peer_dir_len) {
		while (len <= id)
			len = len * 2 < SES_PEER_DIR_MAX ? len * 2 :
							   SES_PEER_DIR_MAX;
		dir = realloc(s->peer_dir, (size_t)len * sizeof(*dir));
		if (!dir)
			return -ENOMEM;
		memset(dir + s->peer_dir_len, 0,
		       (size_t)(len - s->peer_dir_len) * sizeof(*dir));
		s->peer_dir = dir;
		s->peer_dir_len = len;
	}
	s->peer_dir[id] = idx + 1;
	return 0;
}

static void ses_peer_unfile(struct ses *s, uint32_t id)
{
	if (id >= SES_PEER_DIR_MAX)
		ses_map_del(&s->peer_map, id);
	else if (id < s->peer_dir_len)
		s->peer_dir[id] = 0;
}

struct ses_peer *ses_peer_get(struct ses *s, uint32_t id)
{
	struct ses_peer *p = ses_peer_find(s, id);

	if (p)
		return p;
	p = ses_pool_get(&s->peers);
	if (!p)
		return NULL;
	if (ses_peer_file(s, id, ses_pool_idx(&s->peers, p)) < 0) {
		ses_pool_put(&s->peers, p);
		return NULL;
	}
	p->id = id;
	p->tx_next = p->tx_base = ses_first_seq(s);
	ses_list_init(&p->tx_wait);
	s->last_peer = p;
	return p;
}

int ses_peer_win_make(struct ses *s, struct ses_peer *p)
{
	if (p->win)
		return 0;
	p->win = calloc(1, sizeof(*p->win));	/* trimmed: ids restart clean */
	if (!p->win)
		return -ENOMEM;
	for (uint64_t b = p->tx_busy_lo; b; b &= b - 1) {
		uint16_t seq = (uint16_t)((p->tx_base + __builtin_ctzll(b)) &
					  s->id_seq_mask);

		p->win->tx_busy[seq % SES_MSG_WINDOW / 64] |= 1ull << (seq % 64);
	}
	p->tx_busy_lo = 0;
	return 0;
}

int ses_tx(struct ses *s, const struct ses_pkt *pkt)
{
	int ret = s->ops.tx(s->ctx, pkt);

	if (!ret)
		s->st.tx_pkts++;
	return ret;
}

/* A response ops.tx refused, kept until ses_progress offers it again. */
struct ses_rsp_job {
	struct ses_list link;
	struct ses_pkt pkt;
	struct ses_iov iov;	/* a RESPONSE_DATA's payload: data[] */
	uint8_t data[];
};

void ses_rsp_send_to(struct ses *s, uint32_t peer_id,
		     const struct ses_rsp_hdr *h)
{
	struct ses_pkt pkt = { .peer = peer_id,
			       .next_hdr = UET_PDS_NEXT_HDR_RESPONSE };
	struct ses_rsp_job *job;

	pkt.hdr_len = (uint16_t)ses_rsp_hdr_encode(pkt.hdr, sizeof(pkt.hdr), h);
	/* Behind responses already waiting, so they leave in order. */
	if (ses_list_is_empty(&s->rsp_jobs) && ses_tx(s, &pkt) != -EAGAIN)
		return;
	job = malloc(sizeof(*job));
	if (!job)
		return;		/* the initiator's PDC will time out */
	job->pkt = pkt;
	ses_list_add_tail(&s->rsp_jobs, &job->link);
}

void ses_rsp_data_send_to(struct ses *s, uint32_t peer_id,
			  const struct ses_rsp_data_hdr *h, const void *data,
			  uint32_t len)
{
	struct ses_iov iov = { .base = (void *)data, .len = len };
	struct ses_pkt pkt = { .peer = peer_id, .iov = &iov, .iov_cnt = 1,
			       .pay_len = len, .pay_life = SES_PAY_CALL,
			       .next_hdr = UET_PDS_NEXT_HDR_RESPONSE_DATA };
	struct ses_rsp_job *job;

	pkt.hdr_len = (uint16_t)ses_rsp_data_hdr_encode(pkt.hdr,
							sizeof(pkt.hdr), h);
	if (ses_list_is_empty(&s->rsp_jobs) && ses_tx(s, &pkt) != -EAGAIN)
		return;
	/* The payload is the caller's only during this call: copied. */
	job = malloc(sizeof(*job) + len);
	if (!job)
		return;		/* the initiator's PDC will time out */
	job->pkt = pkt;
	memcpy(job->data, data, len);
	job->iov = (struct ses_iov){ .base = job->data, .len = len };
	job->pkt.iov = &job->iov;
	ses_list_add_tail(&s->rsp_jobs, &job->link);
}

void ses_rsp_send(struct ses *s, const struct ses_rxm *m, uint8_t rc,
		  uint32_t modified_len)
{
	const struct ses_peer *p = ses_pool_at(&s->peers, m->peer);
	const struct ses_ri_tbl *t;
	struct ses_rsp_hdr h = {
		.opcode = UET_SES_RSP_RESPONSE, .return_code = rc,
		.message_id = m->msg_id, .job_id = m->job_id,
		.modified_length = modified_len,
	};

	t = ses_tbl_find(s, m->job_id, m->pid_on_fep, m->ri);
	h.ri_generation = t ? t->gen : 0;
	ses_rsp_send_to(s, p->id, &h);
}

static int ses_rsp_progress(struct ses *s)
{
	int sent = 0;

	while (!ses_list_is_empty(&s->rsp_jobs)) {
		struct ses_rsp_job *job = ses_container_of(s->rsp_jobs.next,
							   struct ses_rsp_job,
							   link);

		if (ses_tx(s, &job->pkt) == -EAGAIN)
			break;
		ses_list_del(&job->link);
		free(job);
		sent++;
	}
	return sent;
}

/* Whether ses_progress has anything to look at: a queue or a timer. */
static bool ses_has_progress(const struct ses *s)
{
	return !ses_list_is_empty(&s->rsp_jobs) ||
	       !ses_list_is_empty(&s->read_jobs) ||
	       !ses_list_is_empty(&s->tx_pending) ||
	       !ses_list_is_empty(&s->pull_pending) ||
	       !ses_list_is_empty(&s->rx_active) ||
	       !ses_list_is_empty(&s->pulling) ||
	       !ses_list_is_empty(&s->flush_holds);
}

int ses_progress(struct ses *s, uint64_t now_ns)
{
	int sent;

	s->now_ns = now_ns;
	/* Most passes between two endpoints of a host: one lookup. */
	if (!ses_has_progress(s))
		return 0;
	sent = ses_rsp_progress(s);

	sent += ses_read_progress(s);
	sent += ses_tx_progress(s);
	ses_rdv_progress(s);
	ses_rxm_expire(s, now_ns);
	ses_rdmo_flush_expire(s, now_ns);
	return sent;
}

/*
 * Whether a failure of ours with |status| leaves |m| to wait for its
 * target's answer (ses_peer_fail): a rendezvous send whose request the
 * target took (it answered it, or READ the buffer: the answer may be
 * what the failure lost), while the target was heard within
 * rdv_answer_wait_ns, and the first failure that spared it (noted here)
 * is as recent. A loaded target makes our PDCs time out again and again
 * after a flap (a retry budget of a few ms), while it still reads and
 * answers: a fixed time from the first failure failed sends it had taken.
 */
static bool ses_msg_outlives_failure(struct ses *s, struct ses_msg *m,
				     int status)
{
	const struct ses_peer *p = ses_pool_at(&s->peers, m->peer);
	const struct ses_region *r;
	uint64_t since;

	if (status != -ETIMEDOUT || !(m->flags & SES_MSG_F_RDV) ||
	    (m->flags & SES_MSG_F_DONE) || m->pkt_sent != m->pkt_cnt ||
	    !s->cfg.rdv_answer_wait_ns)
		return false;
	r = ses_pool_at(&s->mrs, m->rdv_mr);
	if (m->rsp_cnt < m->pkt_cnt && !r->read)
		return false;
	if (!(m->flags & SES_MSG_F_SPARED)) {
		m->flags |= SES_MSG_F_SPARED;
		m->spared_ns = s->now_ns;
		return true;
	}
	since = p->heard_ns > m->spared_ns ? p->heard_ns : m->spared_ns;
	return s->now_ns - since < s->cfg.rdv_answer_wait_ns;
}

/*
 * Completes every message to peer index |pidx| and frees its slot, but
 * those left to wait for their target (ses_msg_outlives_failure).
 */
static void ses_peer_fail_tx(struct ses *s, uint32_t pidx, int status)
{
	struct ses_peer *p = ses_pool_at(&s->peers, pidx);
	uint32_t i;

	/*
	 * Mark first: a tx_done callback may post new messages to the peer,
	 * and those are not part of the failure.
	 */
	for (i = 0; i < s->msgs.len; i++) {
		struct ses_msg *m = ses_pool_at(&s->msgs, i);

		if (m->wre && m->peer == pidx &&
		    !ses_msg_outlives_failure(s, m, status))
			m->flags |= SES_MSG_F_FAILING;
	}
	for (i = 0; i < s->msgs.len; i++) {
		struct ses_msg *m = ses_pool_at(&s->msgs, i);

		if (!m->wre || !(m->flags & SES_MSG_F_FAILING))
			continue;
		ses_msg_complete(s, m, status, UET_SES_RC_NULL, 0);
		ses_msg_release(s, m);
	}
	if (!p->tx_cnt) {
		p->tx_base = p->tx_next;
		p->tx_busy_lo = 0;
		if (p->win)
			memset(p->win->tx_busy, 0, sizeof(p->win->tx_busy));
	}
}

static void ses_peer_fail_rx(struct ses *s, uint32_t pidx, int status)
{
	uint32_t i;

	for (i = 0; i < s->rxms.len; i++) {
		struct ses_rxm *m = ses_pool_at(&s->rxms, i);

		/* Complete unexpected messages stay for a receive to take. */
		if (m->flags && m->peer == pidx &&
		    ((m->flags & SES_RXM_F_INMAP) || !(m->flags & SES_RXM_F_UX)))
			ses_rxm_abort(s, m, status, UET_SES_RC_NULL);
	}
	ses_rdmo_flush_drop(s, pidx);
}

static void ses_peer_fail_all(struct ses *s, struct ses_peer *p, int status)
{
	uint32_t pidx = ses_pool_idx(&s->peers, p);

	/* Pulls to this peer first: they complete receives of its sends. */
	ses_peer_fail_tx(s, pidx, status);
	ses_peer_fail_rx(s, pidx, status);
}

int ses_peer_fail(struct ses *s, uint32_t peer, int status)
{
	struct ses_peer *p = ses_peer_find(s, peer);

	if (!p)
		return -ENOENT;
	ses_peer_fail_all(s, p, status);
	/* Messages the tx_done callbacks posted meanwhile, if they wait. */
	ses_msg_wait_kick(s, p);
	return 0;
}

int ses_peer_reset(struct ses *s, uint32_t peer)
{
	struct ses_peer *p = ses_peer_find(s, peer);

	if (!p)
		return -ENOENT;
	ses_peer_fail_all(s, p, -ECONNRESET);
	p->tx_next = p->tx_base = ses_first_seq(s);
	/*
	 * The context stays: a new incarnation comes on a later one, and a
	 * late request of the old one must not be taken for it meanwhile.
	 */
	ses_rx_history_clear(p);
	ses_msg_wait_kick(s, p);
	return 0;
}

static bool ses_rsp_jobs_name(const struct ses *s, uint32_t peer_id)
{
	for (const struct ses_list *n = s->rsp_jobs.next; n != &s->rsp_jobs;
	     n = n->next)
		if (ses_container_of(n, struct ses_rsp_job, link)->pkt.peer ==
		    peer_id)
			return true;
	return false;
}

static bool ses_rxms_name(const struct ses *s, uint32_t pidx)
{
	for (uint32_t i = 0; i < s->rxms.len; i++) {
		const struct ses_rxm *m = ses_pool_at(&s->rxms, i);

		if (m->flags && m->peer == pidx)
			return true;
	}
	return false;
}

bool ses_peer_is_idle(struct ses *s, uint32_t peer)
{
	struct ses_peer *p = ses_peer_find(s, peer);

	if (!p)
		return true;
	return !p->tx_cnt && ses_list_is_empty(&p->tx_wait) &&
	       !ses_rxms_name(s, ses_pool_idx(&s->peers, p)) &&
	       !ses_rdmo_flush_names(s, ses_pool_idx(&s->peers, p)) &&
	       !ses_read_jobs_name(s, peer) && !ses_rsp_jobs_name(s, peer);
}

int ses_peer_forget(struct ses *s, uint32_t peer)
{
	struct ses_peer *p = ses_peer_find(s, peer);

	if (!p)
		return -ENOENT;
	if (!ses_peer_is_idle(s, peer))
		return -EBUSY;
	ses_peer_unfile(s, peer);
	if (s->last_peer == p)
		s->last_peer = NULL;
	free(p->rx_refused);
	p->rx_refused = NULL;
	free(p->win);
	p->win = NULL;
	ses_pool_put(&s->peers, p);
	return 0;
}

int ses_peer_trim(struct ses *s, uint32_t peer)
{
	struct ses_peer *p = ses_peer_find(s, peer);

	if (!p)
		return -ENOENT;
	if (!ses_peer_is_idle(s, peer))
		return -EBUSY;
	if (!p->win)
		return 0;
	/* Nothing in flight: tx_busy is all clear and tx_base == tx_next. */
	free(p->win);
	p->win = NULL;
	p->rx_init = false;
	s->st.peers_trimmed++;
	return 0;
}

void ses_stats_get(const struct ses *s, struct ses_stats *st)
{
	*st = s->st;
}

/* A pool item, its free-list slot, and its share of the map's slots. */
size_t ses_state_msg_len(const struct ses *s)
{
	return s->msgs.item_len + sizeof(uint32_t) +
	       (s->msg_map.mask + 1) * sizeof(struct ses_map_ent) /
	       s->cfg.max_msgs;
}

/*
 * An idle peer's: its item, its free-stack slot, and its share of the
 * map at its emptiest (a quarter full, just after growing). A peer with
 * messages in flight has its windows too (ses_state_peer_win_len).
 */
size_t ses_state_peer_len(const struct ses *s)
{
	return s->peers.item_len + sizeof(uint32_t) +
	       4 * sizeof(struct ses_map_ent);
}

size_t ses_state_peer_pool_len(const struct ses *s)
{
	return (size_t)s->peers.len * s->peers.item_len;
}

size_t ses_state_peer_win_len(void)
{
	return sizeof(struct ses_peer_win);
}
