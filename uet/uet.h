/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The libfabric provider's private header: its objects (fabric, domain, av,
 * cq, cntr, eq, ep, mr), limits, and the calls between its files.
 * Locking: one mutex per domain guards the domain and everything opened
 * on it; engine upcalls run under it (they come from progress and posts).
 */
#ifndef UET_H
#define UET_H

#include <limits.h>
#include <net/if.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include "uet/uet_addr.h"
#include "engine/uet_engine.h"
#include "uet/uet_enosys.h"
#include "uet/uet_list.h"
#include "uet/uet_msg.h"

#define UET_PROV_NAME		"uet"
#define UET_PROV_VERSION	FI_VERSION(0, 1)
/*
 * libfabric API versions. We are built against 1.17's headers, and a core
 * hides a provider whose version is below the one an application asks for
 * (the rule: requested <= provider's <= core's). So fi_prov_ini declares
 * the highest version whose semantics we keep, at most the core's own
 * (uet_fi_version_pick); fi_getinfo then follows the version each
 * application asks for (uet_attr.c: what differs between them).
 */
#define UET_FI_VERSION		FI_VERSION(1, 17)	/* our headers' */
#define UET_FI_VERSION_MAX	FI_VERSION(2, 6)	/* the newest we honour */

uint32_t uet_fi_version_pick(uint32_t core);

/*
 * What libfabric named after 1.17, with the values of its newer headers
 * (rdma/fabric.h, fi_domain.h); each means this only under an API version
 * at least the one given, as the bits meant something else before.
 */
#define UET_FI_AV_AUTH_KEY		SIZE_MAX	/* 1.20: auth_key_size */
#define UET_FI_TAGGED_DIRECTED_RECV	(1ULL << 45)	/* 2.0 (an MR flag) */
#define UET_FI_EXACT_DIRECTED_RECV	(1ULL << 48)	/* 2.0 (FI_VARIABLE_MSG) */
#define UET_FI_PROGRESS_CONTROL_UNIFIED	3		/* 2.0 */
#define UET_FI_TAG_CCL			2		/* 2.0: mem_tag_format */
#define UET_FI_TAG_MAX_FORMAT		(1ULL << 16)	/* 2.0: ... */
/* The caps 2.0 added that we have: directed receives are (uet_msg_rx.c). */
#define UET_CAPS_2_0		(UET_FI_TAGGED_DIRECTED_RECV | \
				 UET_FI_EXACT_DIRECTED_RECV)

/*
 * struct fi_domain_attr as libfabric 1.20 and later lay it out: 1.17's
 * fields, then those appended since (ABI 1.7, 1.8 and 1.9). An fi_info
 * the core allocated (fi_allocinfo, fi_dupinfo; hints included) has them
 * when the core's version does; never touched otherwise.
 */
struct uet_domain_attr_ext {
	struct fi_domain_attr	base;
	size_t			max_ep_auth_key;	/* 1.20 */
	uint32_t		max_group_id;		/* 2.0 */
	uint64_t		max_cntr_value;		/* 2.5 */
	uint64_t		max_err_cntr_value;	/* 2.5 */
};

/*
 * FI_LOCAL_COMM: peers on the same host work when each has its own
 * interface (network namespaces joined by veth, as MPI ranks run here); two
 * endpoints cannot share one interface queue (one AF_XDP socket a queue).
 */
#define UET_CAPS		(UET_TX_CAPS | UET_RX_CAPS | FI_LOCAL_COMM | \
				 FI_REMOTE_COMM)
#define UET_TX_CAPS		(FI_MSG | FI_TAGGED | FI_SEND | FI_RMA | \
				 FI_ATOMIC | FI_READ | FI_WRITE)
#define UET_RX_CAPS		(FI_MSG | FI_TAGGED | FI_RECV | FI_MULTI_RECV | \
				 FI_DIRECTED_RECV | FI_SOURCE | FI_RMA | \
				 FI_ATOMIC | FI_REMOTE_READ | FI_REMOTE_WRITE | \
				 FI_RMA_EVENT)
/* The message order we can give: FI_ORDER_SAS, on ROD PDCs. */
#define UET_MSG_ORDER		FI_ORDER_SAS
#define UET_DOMAIN_CAPS		(FI_LOCAL_COMM | FI_REMOTE_COMM)
#define UET_TX_OP_FLAGS		(FI_COMPLETION | UET_TX_CPL_LEVELS)
/* Completion levels (fi_cq(3)); what each means here: uet_op_level.c. */
#define UET_TX_CPL_LEVELS	(FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE | \
				 FI_DELIVERY_COMPLETE)
/* The level of operations that ask for none, as fi_getinfo reports it. */
#define UET_TX_CPL_DEFAULT	FI_TRANSMIT_COMPLETE
/* The mr_mode bits we keep when the application offers them. */
#define UET_MR_MODE		(FI_MR_PROV_KEY | FI_MR_ENDPOINT | \
				 FI_MR_VIRT_ADDR)

#define UET_INJECT_SIZE		64
/*
 * FI_INJECT_COMPLETE copies payloads up to this long (the eager sends:
 * SES's rendezvous threshold) and completes at once; longer ones complete
 * when the target has them, after which their buffer is never read again.
 */
#define UET_INJECT_COPY_MAX	8192
#define UET_TX_SIZE		1024	/* operations in flight per endpoint */
#define UET_RX_SIZE		1024	/* posted receives per endpoint */
#define UET_MIN_MULTI_RECV	64	/* FI_OPT_MIN_MULTI_RECV default */
#define UET_MAX_MSG_SIZE	0xFFFFFFFEull
#define UET_CQ_DEF_SIZE		1024
#define UET_AV_DEF_SIZE		64
#define UET_MR_CNT		4096	/* ses_config.max_mrs */
#define UET_PEER_TIMEOUT_MS	3000	/* neighbour resolution, then
					 * FI_EHOSTUNREACH (never waited on) */
/*
 * Retransmissions of a packet before its PDC fails. A receiver with no
 * room for an unexpected send refuses it for now (NACK) and the sender
 * resends it: the budget must outlast a receiver slow to post, not only
 * loss; PDC's half TIME_WAIT still bounds the time (the PDC default, 10,
 * ran out in ~0.1 s at a 200 us RTO). 40 made a dead peer take 2.5 s to
 * notice, twice over when a later send opened a new PDC to it (4.9 s of
 * the 5 s issue 6 allows); 25 notices in 1.5 s and still outlasts the
 * 2000-unexpected-sends test.
 */
#define UET_MAX_RETRIES		25
#define UET_MR_HASH_SIZE	256
/*
 * FI_MR_VIRT_ADDR keys: region base in bits 62:16, rkey in 15:0; bit 63
 * in both kinds of key is UET_MKEY_IDEMPOTENT_SAFE (FI_UET_MR_IDEMPOTENT,
 * uet_rudi.c). User addresses below 2^47 (x86-64 and arm64 with 4-level
 * tables) fit.
 */
#define UET_MR_VA_SHIFT		16
#define UET_MR_VA_RKEY_MAX	0xFFFFull
#define UET_MR_VA_BASE_MAX	((1ull << 47) - 1)

extern struct fi_provider uet_prov;

/* FI_UET_* settings (fi_param_define in uet_init.c). */
struct uet_params {
	char iface[IF_NAMESIZE];
	uint32_t payload_mtu;
	uint32_t job_id;
	uint16_t port;
	uint64_t rto_ns;
	uint32_t max_retries;
	uint32_t max_peers;		/* 0: the engine's default */
	uint32_t max_pdcs;		/* 0: the most the interface allows */
	uint32_t max_opening;		/* 0: the engine's default */
	uint32_t queue_id;
	uint32_t rdv_threshold;		/* sends above go as rendezvous */
	uint32_t rdv_eager;		/* bytes its request carries */
	uint16_t pid_on_fep;
	uint16_t ri_base;
	bool ack_before_cpl;
	int64_t progress_idle_us;	/* -1: the default */
	int64_t spin_us;		/* FI_UET_SPIN_US, -1: never sleep */
	uint8_t multipath;		/* enum pdc_mp_mode */
	uint16_t entropies;		/* 0: the engine's default */
	bool print_stats;		/* FI_UET_STATS */
	/* Congestion trace (uet_init_trace.c): "" for none. */
	char trace_path[PATH_MAX];	/* FI_UET_TRACE */
	uint32_t trace_us;		/* FI_UET_TRACE_US */
	/* Congestion control (uet_init_cc.c). */
	uint8_t cc;			/* FI_UET_CC: PDC_CC_* */
	uint32_t link_mbps;		/* 0: the engine's default */
	bool trimming;
	bool dfc;			/* FI_UET_DFC */
	struct uet_engine_dscp dscp;
	/* Data protection (uet_init_dp.c). */
	uint8_t tss;			/* FI_UET_TSS: enum uet_engine_tss */
	bool crc;			/* FI_UET_CRC */
	bool local_off;			/* FI_UET_LOCAL=off */
	uint32_t local_pull;		/* FI_UET_LOCAL_PULL; 0: default */
	bool rudi;			/* FI_UET_RUDI=auto (uet_rudi.c) */
};

void uet_params_get(struct uet_params *p);
void uet_param_int(const char *name, uint32_t max, uint32_t *v);
void uet_params_cc_define(void);
void uet_params_cc_get(struct uet_params *p);
uint32_t uet_cc_link_mbps(const char *ifname, uint32_t param_mbps,
			 bool *guessed);
void uet_params_dp_define(void);
void uet_params_dp_get(struct uet_params *p);
void uet_params_rudi_define(void);
void uet_params_rudi_get(struct uet_params *p);
void uet_params_trace_define(void);
void uet_params_trace_get(struct uet_params *p);
bool uet_rudi_wanted(const struct uet_ep *ep, fi_addr_t addr, uint64_t mkey,
		     uint8_t opcode, uint64_t flags);

/*
 * Sends up to 64 KiB go eager: a rendezvous costs a round trip before the
 * data moves (MPI's 16 KiB latency was 3.1 x its 8 KiB one with 8 KiB).
 * Unexpected, an eager send is buffered (bounded: max_unexpected_len).
 * A rendezvous request carries its first packet of data (a whole Payload
 * MTU), which travels while the target sets up the READ of the rest.
 */
#define UET_RDV_THRESHOLD_DEFAULT	65536
#define UET_RDV_EAGER_DEFAULT		UINT32_MAX	/* a packet's worth */

/* The progress thread's idle time (uet_progress_thread.c), us. */
#define UET_PROGRESS_IDLE_US		100
#define UET_PROGRESS_IDLE_MIN_US	10
/*
 * A polling application's spin budget (uet_idle.c), us: see its comment.
 * Long enough for a round trip on cores of their own, no longer: two
 * processes the scheduler puts on one core (unpinned on a loaded machine
 * it does, and keeps them there) answer each other only when the
 * spinner's budget runs out, so an 8 B ping-pong's half round trip there
 * was the budget (55 us at 50, 25 at 20, 14 at 10, 9.3 at 5, 3.5 at 0;
 * spinning for ever, -1, never got through). Below a round trip the
 * yields slow the ping-pong on idle cores: pinned, between namespaces
 * (medians of 5 alternated) 3.81 us at 0 and 3.50 at 5 against 3.16
 * spinning; 3.61 at 10 and 3.66 at 20 against 3.81 (between processes
 * of a host 0.68 at 10, 0.75 spinning). (With 50, fi_msg_check's flood
 * once failed, its sends past the receiver's bound timed out: an ordered
 * PDC resent a refused packet once a round trip until its tries ran out,
 * whatever the budget; pdc_ini_refused.)
 */
#define UET_SPIN_US_DEFAULT		10

/* ---- objects ---------------------------------------------------------------- */
struct uet_fabric {
	struct fid_fabric fab_fid;
	atomic_int ref;			/* domains and EQs open on it */
};

struct uet_mr;

struct uet_domain {
	struct fid_domain dom_fid;
	struct uet_fabric *fab;
	pthread_mutex_t lock;
	atomic_int ref;			/* objects open on it */
	struct uet_list waits;		/* struct uet_wait_obj with an fd */
	uint64_t caps;
	int mr_mode;			/* FI_MR_* semantics in force */
	uint32_t job_id;
	enum fi_threading threading;
	char ifname[IF_NAMESIZE];
	uint32_t link_mbps;		/* CC's link rate (uet_cc_link_mbps) */
	bool link_guessed;		/* ... not the driver's nor set */
	struct uet_addr src;		/* interface address, default PID */
	struct uet_params params;
	struct uet_list eps;
	struct uet_mr *mr_hash[UET_MR_HASH_SIZE];
	size_t mr_cnt;
	size_t mr_cntr_cnt;		/* counters bound to MRs (bindings) */
	uint64_t next_rkey;
	/* Progress (uet_progress_thread.c) */
	enum fi_progress progress;	/* data progress asked for */
	atomic_ulong app_calls;		/* progress runs the application made */
	uint64_t prog_idle_ns;		/* 0: no thread (manual only) */
	bool prog_started;
	atomic_bool prog_stop;
	int prog_stop_fd;
	pthread_t prog_thread;
	/* Progress that yields (uet_idle.c) */
	uint64_t spin_ns;		/* UINT64_MAX: never sleep */
	uint64_t idle_since_ns;		/* first empty read; 0: busy */
	uint32_t idle_reads;		/* empty reads since the clock */
	uint64_t idle_yield_ns;		/* when the last yield returned */
	atomic_int app_sleeping;	/* application threads in a wait */
	/*
	 * The application armed a wait object (fi_trywait) with app_calls
	 * at this count, and its timer is due before app_armed_until_ns:
	 * blocked on that fd, it wakes for what the thread would.
	 */
	atomic_ulong app_armed_calls;
	_Atomic uint64_t app_armed_until_ns;
	struct uet_list all_link;	/* uet_domains_flush() */
	pid_t owner_pid;		/* a forked child's copy is not ours */
};

/*
 * AV slots live in chunks of UET_AV_CHUNK (the first grows up to that
 * size, so that a small AV stays small): growing moves no entry and
 * allocates at most one chunk ahead. UET_AV_MAX slots at most.
 */
#define UET_AV_CHUNK_SHIFT	12
#define UET_AV_CHUNK		(1u << UET_AV_CHUNK_SHIFT)
#define UET_AV_MAX		(1u << 30)
#define UET_AV_NIL		UINT32_MAX	/* ends a chain or list */

#define UET_AV_ASKED		64	/* hosts whose next hop was asked */

#define UET_AV_E_USED		0x01	/* holds an address */
#define UET_AV_E_V6		0x02

/*
 * One AV slot, 36 bytes (a million cost 36 MB): the address of its blob
 * (uet_addr.h) unpacked, the slot's generation, and its link in the
 * reverse index's chain or, once removed from an FI_AV_MAP, in the list
 * of slots to reuse (uet_av_tbl.c).
 */
struct uet_av_entry {
	uint8_t ip[16];			/* IPv4 in bytes 0..3, the rest 0 */
	uint32_t initiator;
	uint32_t gen;			/* +1 each insertion here, never 0 */
	uint32_t next;			/* chain or free list; UET_AV_NIL */
	uint16_t pid_on_fep;
	uint16_t ri_base;
	uint16_t fep_caps;
	uint8_t flags;			/* UET_AV_E_* */
	uint8_t pad;
};

/*
 * FI_AV_TABLE hands out slot numbers, 0 up, never reused. FI_AV_MAP's
 * fi_addr is the slot's generation above its number (bits 63:32 and
 * 31:0), so that an fi_addr kept after fi_av_remove is refused (-FI_EINVAL)
 * rather than reaching whoever got the slot next.
 */
struct uet_nl;

struct uet_av {
	struct fid_av av_fid;
	struct uet_domain *dom;
	atomic_int ref;			/* endpoints bound to it */
	enum fi_av_type type;
	struct uet_av_entry **chunk;
	uint32_t nchunk, chunk_room;	/* chunks made, room in chunk[] */
	uint32_t cap;			/* slots allocated */
	uint32_t used;			/* slots handed out: those below it */
	uint32_t count;			/* slots holding an address */
	uint32_t free_head;		/* FI_AV_MAP's removed slots, LIFO */
	uint32_t *bucket;		/* reverse index: heads of chains */
	uint32_t nbucket;		/* a power of 2, >= count */
	/* Next-hop prefetches (uet_av.c): a netlink socket kept between
	 * insertions, and the hosts asked for lately, by hash. */
	struct uet_nl *_Atomic nl;
	struct uet_fa asked[UET_AV_ASKED];
};

/*
 * The wait object of a CQ, counter or EQ (uet_wait.c). Every one has an
 * eventfd (fi_cq_signal, and the wake-up of sread and fi_cntr_wait when
 * another thread adds an entry). FI_WAIT_FD, FI_WAIT_UNSPEC and
 * FI_WAIT_SET add an epoll fd, the one FI_GETWAIT hands out, holding the
 * eventfd, a timerfd and, for CQs and counters, the AF_XDP socket of every
 * enabled endpoint of the domain: progress is manual, so frames arriving
 * must wake the application, whose next read then progresses them. The
 * timerfd, armed by fi_trywait, stands for the engines' timers.
 * Fields are guarded by the owner's lock (domain lock; eq->lock for EQs).
 */
struct uet_wait_set;

struct uet_wait_obj {
	int evfd;
	int epfd;			/* -1: FI_WAIT_NONE or FI_WAIT_YIELD */
	int tfd;
	enum fi_wait_obj kind;		/* as opened */
	bool pending;			/* evfd holds a count */
	bool armed;			/* tfd is set and has not been read */
	struct fid *owner;		/* the CQ, counter or EQ */
	struct uet_domain *dom;		/* NULL for EQs: no engines */
	struct uet_list link;		/* in dom->waits */
	struct uet_wait_set *set;	/* FI_WAIT_SET */
	struct uet_list set_link;
};

/* A completion as queued: every field any format may ask for. */
struct uet_cq_entry {
	void *op_context;
	uint64_t flags;
	size_t len;
	void *buf;
	uint64_t data;
	uint64_t tag;
	fi_addr_t src;
};

struct uet_cq {
	struct fid_cq cq_fid;
	struct uet_domain *dom;
	atomic_int ref;			/* endpoint bindings, poll sets */
	enum fi_cq_format format;
	size_t entry_len;
	struct uet_cq_entry *ring;
	size_t cap, head, cnt;
	struct uet_list errs;		/* struct uet_cq_err */
	struct uet_wait_obj wait;
	bool signalled;			/* fi_cq_signal, not yet seen */
};

struct uet_cntr {
	struct fid_cntr cntr_fid;
	struct uet_domain *dom;
	atomic_int ref;			/* endpoint bindings, poll sets */
	uint64_t value, err;
	/* What fi_poll and fi_trywait last reported (fi_poll(3)). */
	uint64_t seen_value, seen_err;
	uint64_t read_value;		/* at the last fi_cntr_read */
	struct uet_wait_obj wait;
};

struct uet_eq {
	struct fid_eq eq_fid;
	struct uet_fabric *fab;
	atomic_int ref;			/* bindings */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct uet_list events;		/* struct uet_eq_event */
	struct uet_wait_obj wait;
};

/* Counters an endpoint may bind, by what they count. */
enum uet_ep_cntr {
	UET_CNTR_SEND,
	UET_CNTR_RECV,
	UET_CNTR_READ,
	UET_CNTR_WRITE,
	UET_CNTR_REMOTE_WRITE,		/* FI_RMA_EVENT: uet_rma_event.c */
	UET_CNTR_REMOTE_READ,
	UET_CNTR_MAX
};

/* One RMA operation or send: its WRE and what the WRE points to. */
struct uet_op {
	struct ses_wre wre;
	struct ses_iov iov[SES_IOV_MAX];
	struct ses_addr dst;
	struct uet_ep *ep;
	void *context;
	uint64_t cq_flags;		/* FI_RMA or FI_ATOMIC | FI_WRITE /
					 * FI_READ, or FI_SEND | FI_MSG /
					 * FI_TAGGED */
	struct ses_iov res_iov[SES_IOV_MAX];	/* fetched values */
	uint64_t len;
	bool want_cq;			/* a success completion was asked for */
	bool fence;
	uint8_t cpl_at;			/* enum uet_op_cpl_at (uet_op_level.c) */
	struct uet_list link;		/* free list or fence queue */
	uint8_t inject[UET_INJECT_SIZE];
	uint8_t *copy;			/* FI_INJECT_COMPLETE copy of a payload
					 * above UET_INJECT_SIZE; kept */
};

/*
 * An endpoint's view of one AV slot: the engine's id for its address.
 * 8 bytes a slot, in chunks of UET_AV_CHUNK made when the endpoint first
 * sends to a slot of theirs (uet_ep_peer_slot).
 */
struct uet_ep_peer {
	uint32_t gen;			/* the AV entry's gen it was made for */
	uint32_t id;
};

struct uet_ep {
	struct fid_ep ep_fid;
	struct uet_domain *dom;
	struct uet_list link;		/* in dom->eps */
	uint64_t caps;
	uint64_t tx_op_flags, rx_op_flags;
	struct uet_addr src;
	struct uet_av *av;
	struct uet_cq *tx_cq, *rx_cq;
	bool tx_selective, rx_selective;
	struct uet_cntr *cntr[UET_CNTR_MAX];
	struct uet_eq *eq;
	struct uet_engine *eng;
	struct uet_ep_peer **peers;	/* by AV slot, chunked as the AV */
	uint32_t peer_chunks;		/* room in peers[] */
	uint32_t peers0_cap;		/* slots in peers[0], up to a chunk */
	struct uet_op *ops;
	size_t tx_size, outstanding;
	struct uet_list free_ops;
	struct uet_list fenced;		/* ops waiting for a fence */
	bool kicking;
	bool ordered;			/* FI_ORDER_SAS: the engine uses ROD */
	struct uet_msg_rx rx;		/* receives (uet_msg.h) */
};

struct uet_mr {
	struct fid_mr mr_fid;
	struct uet_domain *dom;
	struct uet_mr *hnext;		/* dom->mr_hash chain */
	uint8_t *base;
	size_t len;
	uint64_t access;
	uint64_t rkey;			/* 48-bit UET RKEY */
	struct uet_ep *ep;		/* FI_MR_ENDPOINT binding */
	/* fi_mr_bind: FI_REMOTE_WRITE and FI_REMOTE_READ events. */
	struct uet_cntr *write_cntr, *read_cntr;
	bool enabled;
	bool idempotent;		/* FI_UET_MR_IDEMPOTENT */
};

/* ---- calls between files ---------------------------------------------------- */
/* uet_attr.c */
int uet_getinfo(uint32_t version, const char *node, const char *service,
		uint64_t flags, const struct fi_info *hints,
		struct fi_info **info);
int uet_mr_mode_effective(int mr_mode);

/* uet_fabric.c */
int uet_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		    void *context);

/* uet_domain.c */
int uet_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **dom, void *context);

/* uet_av.c */
int uet_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av, void *context);

/* uet_av_tbl.c: the AV's slots and reverse index, domain lock held. */
int uet_av_tbl_init(struct uet_av *av, size_t count_hint);
void uet_av_tbl_fini(struct uet_av *av);
int uet_av_tbl_put(struct uet_av *av, const struct uet_addr *a,
		   fi_addr_t *fi_addr);
void uet_av_tbl_del(struct uet_av *av, fi_addr_t addr);
/* The entry at |addr|, or NULL when |addr| holds none (now). */
const struct uet_av_entry *uet_av_entry_get(const struct uet_av *av,
					    fi_addr_t addr);
void uet_av_entry_addr(const struct uet_av_entry *e, struct uet_addr *a);
void uet_av_entry_fa(const struct uet_av_entry *e, struct uet_fa *fa);
/* The fi_addr holding |fa| and |initiator|, or FI_ADDR_NOTAVAIL; O(1). */
fi_addr_t uet_av_reverse(const struct uet_av *av, const struct uet_fa *fa,
			 uint32_t initiator);

/* The slot number of an fi_addr uet_av_entry_get accepted. */
static inline uint32_t uet_av_slot_of(fi_addr_t addr)
{
	return (uint32_t)addr;
}

/* uet_cq.c */
int uet_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		struct fid_cq **cq, void *context);
void uet_cq_write(struct uet_cq *cq, const struct uet_cq_entry *e);
void uet_cq_write_err(struct uet_cq *cq, const struct fi_cq_err_entry *e);
int uet_cq_trywait(struct uet_cq *cq);
bool uet_cq_has_events(const struct uet_cq *cq);

/* uet_cntr.c */
int uet_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		  struct fid_cntr **cntr, void *context);
void uet_cntr_inc(struct uet_cntr *c);
void uet_cntr_inc_err(struct uet_cntr *c);
int uet_cntr_trywait(struct uet_cntr *c);
bool uet_cntr_changed(struct uet_cntr *c);

/* uet_eq.c */
int uet_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		struct fid_eq **eq, void *context);
int uet_eq_trywait(struct uet_eq *eq);

/* uet_wait.c: the wait objects of CQs, counters and EQs */
int uet_wait_obj_init(struct uet_wait_obj *w, struct fid *owner,
		      struct uet_domain *dom, struct uet_fabric *fab,
		      enum fi_wait_obj kind, struct fid_wait *set);
void uet_wait_obj_fini(struct uet_wait_obj *w);
void uet_wait_obj_signal(struct uet_wait_obj *w);
void uet_wait_obj_quiet(struct uet_wait_obj *w);
void uet_wait_obj_drain(struct uet_wait_obj *w);
int uet_wait_obj_arm(struct uet_wait_obj *w);
int uet_wait_obj_control(struct uet_wait_obj *w, int command, void *arg);
void uet_wait_ep_enabled(struct uet_ep *ep);
void uet_wait_ep_closing(struct uet_ep *ep);

/* uet_wait_set.c: wait sets, fi_trywait */
int uet_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
		  struct fid_wait **waitset);
int uet_trywait(struct fid_fabric *fabric, struct fid **fids, int count);
struct uet_wait_set *uet_wait_set_of(struct fid_wait *set,
				     const struct uet_fabric *fab);
int uet_wait_set_join(struct uet_wait_set *set, struct uet_wait_obj *w);
void uet_wait_set_leave(struct uet_wait_set *set, struct uet_wait_obj *w);
int uet_wait_set_fd(const struct uet_wait_set *set);

/* uet_poll.c */
int uet_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
		  struct fid_poll **pollset);

/* uet_ep.c */
int uet_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep, void *context);
int uet_ep_peer_dst(struct uet_ep *ep, fi_addr_t addr, struct ses_addr *dst,
		    uint16_t *ri);
struct uet_ep_peer *uet_ep_peer_slot(struct uet_ep *ep, uint32_t slot);

/* uet_mr.c */
extern const struct fi_ops_mr uet_mr_ops;
int uet_mr_install_ep(struct uet_ep *ep);
void uet_mr_detach_ep(struct uet_ep *ep);
void uet_mr_detach_cntr(struct uet_cntr *c);
struct uet_mr *uet_mr_find(const struct uet_domain *dom, uint64_t rkey);
int uet_mr_key_to_wire(const struct uet_domain *dom, uint64_t key,
		       uint64_t addr, uint64_t *mkey, uint64_t *offset);
int uet_mr_map_raw(struct uet_domain *dom, struct fi_mr_map_raw *map);

/*
 * uet_rma_event.c: counts a remote operation done on |ep|'s regions;
 * whether any counter did.
 */
bool uet_rma_event_count(struct uet_ep *ep, const struct ses_rma_event *ev,
			 const struct uet_mr *mr);

/* uet_atomic.c */
extern const struct fi_ops_atomic uet_atomic_ops;
int uet_query_atomic(struct fid_domain *domain, enum fi_datatype datatype,
		     enum fi_op op, struct fi_atomic_attr *attr, uint64_t flags);

/* uet_op_level.c: completion levels (FI_INJECT_COMPLETE and the others) */
enum uet_op_cpl_at {
	UET_OP_CPL_AT_END,		/* when the engine finishes it */
	UET_OP_CPL_AT_COPY,		/* once accepted: the payload is copied */
	UET_OP_CPL_REPORTED,		/* done so: the end reports nothing */
};
void uet_op_set_iov(struct uet_op *op, const struct iovec *iov, size_t cnt,
		    uint64_t flags);
void uet_op_accepted(struct uet_op *op);
bool uet_op_is_reported(const struct uet_op *op);
bool uet_op_end_was_reported(struct uet_op *op, int status, uint8_t rc);
/*
 * |op|'s own buffer of UET_INJECT_COPY_MAX bytes (the one an inject
 * completion copies into), kept with it; NULL when out of memory.
 */
uint8_t *uet_op_scratch(struct uet_op *op);
void uet_op_free_copies(struct uet_ep *ep);

/* uet_rdmo.c: fi_open_ops(FI_UET_RDMO_OPS) on a domain. */
int uet_domain_ops_open(struct fid *fid, const char *name, uint64_t flags,
			void **ops, void *context);

/* uet_rma.c */
extern const struct fi_ops_rma uet_rma_ops;
struct uet_op *uet_op_take(struct uet_ep *ep);
ssize_t uet_op_submit(struct uet_op *op);
void uet_ep_fence_kick(struct uet_ep *ep);
void uet_op_complete(struct uet_op *op, int status, uint8_t rc);

/* uet_progress.c */
extern const struct uet_engine_ops uet_engine_ops;
void uet_domain_progress(struct uet_domain *dom);
void uet_domain_app_came(struct uet_domain *dom);
uint64_t uet_deadline_ns(int timeout_ms);
bool uet_deadline_passed(uint64_t deadline_ns);
int uet_domain_wait(struct uet_domain *dom, int extra_fd,
		    uint64_t deadline_ns);
/* Runs every enabled endpoint's engine, for the progress thread. Locked. */
void uet_domain_run_engines(struct uet_domain *dom);
/* Sends what every engine holds for the application's answer. Locked. */
void uet_domain_send_held(struct uet_domain *dom);
void uet_params_spin_define(void);
int uet_params_spin_get(struct uet_params *p);
void uet_domain_spin_init(struct uet_domain *dom);
bool uet_domain_idle(struct uet_domain *dom, int extra_fd);
bool uet_domain_sread_spins(struct uet_domain *dom, uint64_t *until);
/* The domain's progress thread, started with its first endpoint. */
int uet_progress_thread_start(struct uet_domain *dom);
void uet_progress_thread_stop(struct uet_domain *dom);
/*
 * Hands the kernel what every endpoint of every domain owes (the process
 * exits: fi_fini, or our destructor).
 */
void uet_domains_flush(void);
int uet_fi_errno(int status, uint8_t rc);
const char *uet_rc_str(uint8_t rc);
/*
 * prov_errno of an error completion: the target's UET return code (> 0),
 * or minus the local errno (a time-out, a peer gone), or 0.
 */
int uet_prov_errno(int status, uint8_t rc);
/* Its text, in |buf| (a per-thread buffer when none is given). */
const char *uet_strerror(int prov_errno, char *buf, size_t len);

/* uet_enosys.c: uet_enosys.h */

/*
 * Sums the lengths of |cnt| iovecs into |*total|: -FI_EINVAL when there are
 * more than SES_IOV_MAX, or a non-empty one has no base. Shared by the RMA
 * and send paths, which check the same things first.
 */
static inline int uet_iov_total(const struct iovec *iov, size_t cnt,
				uint64_t *total)
{
	*total = 0;
	if (cnt > SES_IOV_MAX || (cnt && !iov))
		return -FI_EINVAL;
	for (size_t i = 0; i < cnt; i++) {
		if (!iov[i].iov_base && iov[i].iov_len)
			return -FI_EINVAL;
		*total += iov[i].iov_len;
	}
	return 0;
}

/*
 * An entry was added to the owner of |w| (its lock held): whoever blocks on
 * its fd wakes. One write per batch: the eventfd stays readable until a
 * read finds the owner empty (uet_wait_obj_quiet), so busy-polling
 * applications and objects without an fd pay nothing.
 */
static inline void uet_wait_obj_note(struct uet_wait_obj *w)
{
	if (w->epfd >= 0 && !w->pending)
		uet_wait_obj_signal(w);
}

/* The owner of |w| was read empty: its fd must stop saying readable. */
static inline void uet_wait_obj_idle(struct uet_wait_obj *w)
{
	if (w->pending || w->armed)
		uet_wait_obj_quiet(w);
}

/* Something arrived or completed: the spin budget starts again. */
static inline void uet_domain_busy(struct uet_domain *dom)
{
	dom->idle_since_ns = 0;
	dom->idle_reads = 0;
}

static inline void uet_domain_lock(struct uet_domain *dom)
{
	pthread_mutex_lock(&dom->lock);
}

static inline void uet_domain_unlock(struct uet_domain *dom)
{
	pthread_mutex_unlock(&dom->lock);
}

#endif /* UET_H */
