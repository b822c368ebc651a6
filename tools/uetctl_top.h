/* SPDX-License-Identifier: BSD-2-Clause */
/* `uetctl top`: a live view of an interface's endpoints (uetctl_top.c). */
#ifndef UETCTL_TOP_H
#define UETCTL_TOP_H

/* The verb: `uetctl top IFACE [--once] [--interval S]`; exit status. */
int uetctl_top(int argc, char **argv);

#endif /* UETCTL_TOP_H */
