/* xidwatch.h -- the agent's NVML event thread: Xid errors as they happen.
 *
 * Xid errors are the driver's own error reports (GPU fell off the bus,
 * double-bit ECC, page retirement, GSP timeouts ...).  Polling cannot see
 * them; NVML delivers them as events (nvmlEventTypeXidCriticalError) to an
 * event set that a thread waits on.  This thread owns its own NVML session
 * (NVML's init is reference counted, so it shares the library with the
 * sampler without sharing its state), registers every GPU that supports Xid
 * events, and hands each event to a callback.  When the driver goes away the
 * thread tears down and retries with capped backoff; a GPU that does not
 * support events is skipped and logged once.
 */
#ifndef GM_AGENT_XIDWATCH_H
#define GM_AGENT_XIDWATCH_H

#include <stdint.h>

/* Called on the watcher's thread for each Xid event. */
typedef void (*gm_xid_fn)(void *arg, int gpu_index, const char *uuid, unsigned long long xid,
                          int64_t wall_ns);

struct gm_xid_watch;

/* Starts the thread.  lib_path as for gm_nvml_open (NULL/"" = the default).
 * Returns NULL only when the thread cannot be created. */
struct gm_xid_watch *gm_xid_watch_start(const char *lib_path, gm_xid_fn fn, void *arg);

/* Asks the thread to stop without waiting (it stops calling fn at once
 * after its current event, and exits within one event wait). */
void gm_xid_watch_request_stop(struct gm_xid_watch *w);

/* Stops the thread, waiting at most timeout_ns (an event wait returns
 * within a quarter of a second; a wedged driver call may not, and the thread is
 * then left to the process's exit).  Accepts NULL. */
void gm_xid_watch_stop(struct gm_xid_watch *w, int64_t timeout_ns);

/* GPUs registered for Xid events now (-1 while NVML is unavailable). */
int gm_xid_watch_gpus(struct gm_xid_watch *w);

#endif /* GM_AGENT_XIDWATCH_H */
