/* control.h -- the agent's control socket, <data-dir>/agent.sock, and its
 * client (`gpumon mark`, `gpumon agent --status`, `gpumon alerts`).
 *
 * The protocol: one request line per connection (at most
 * GM_CONTROL_REQUEST_MAX bytes with its newline; a request that ends at the
 * client's half-close without a newline counts too), one reply, then the
 * agent half-closes and the client closes.  What requests mean is the
 * daemon's (a handler); this module owns the bounds, so that a client on
 * the socket -- any local user who can reach it -- cannot hurt the agent:
 *
 *  - one thread serves up to GM_CONTROL_CONNS connections at once with
 *    poll(2); the sampler and the sinks never wait for it;
 *  - each connection has GM_CONTROL_TIMEOUT_MS from accept to close,
 *    however slowly its bytes come; then it is closed;
 *  - a longer request is answered "ERR request longer than N bytes";
 *  - the agent reads what the client sends until the client's EOF (within
 *    that time), so that a client is never cut off while still writing
 *    (EPIPE/ECONNRESET on its side);
 *  - when every slot is taken, the connection that has waited longest is
 *    closed to make room for the new one.
 *
 * Known limit: a client that opens connections as fast as the agent accepts
 * them keeps others' requests waiting; it cannot make them wait longer than
 * the client's own timeout (5 s), and it cannot stall sampling.
 */
#ifndef GM_AGENT_CONTROL_H
#define GM_AGENT_CONTROL_H

#include <stddef.h>

#include "../core/buf.h"
#include "../core/err.h"

/* The protocol's version, answered to HELLO (docs/control.md): 1 is PING,
 * STATUS, ALERTS, MARK; 2 adds HELLO and STEP.  An agent of version 1
 * answers HELLO "ERR unknown request". */
#define GM_CONTROL_VERSION 2
#define GM_STEP_NAME_MAX 64   /* bytes of a STEP value's name */
#define GM_STEP_VALUES_MAX 32 /* values one STEP carries */
/* A MARK's or STEP's time is at most this far from the agent's wall clock,
 * either way: a client stamps it with the same host's clock just before it
 * sends, and every distinct day a stranger could name would be an events
 * file that retention never removes (one in the future, 2262 at most). */
#define GM_MARK_WINDOW_S 3600

#define GM_CONTROL_REQUEST_MAX 8192 /* bytes of a request, newline included */
#define GM_CONTROL_CONNS 16         /* connections served at once */
#define GM_CONTROL_TIMEOUT_MS 2000  /* from accept to close, per connection */
#define GM_CONTROL_MODE 0660        /* agent.sock: its owner and group may connect */

/* Answers one request: req[0..len) is the line without its newline (it may
 * hold any byte, NUL included); the reply, ending in a newline, is appended
 * to reply.  Runs on the control thread. */
typedef void (*gm_control_handler)(void *arg, const char *req, size_t len, struct gm_buf *reply);

struct gm_control;

/* Listens on <dir>/agent.sock (a stale socket there is removed; anything
 * else at that name is refused and left alone), mode GM_CONTROL_MODE
 * whatever the umask, and starts the thread that serves it with handler.
 * NULL and err on failure. */
struct gm_control *gm_control_start(const char *dir, gm_control_handler handler, void *arg,
                                    struct gm_err *err);

/* Stops the thread (within about 200 ms), closes every connection and
 * removes the socket.  Accepts NULL. */
void gm_control_stop(struct gm_control *c);

/* Client side: sends one request line to the agent of data_dir and copies
 * the whole reply into reply[len] (NUL-terminated).  Never raises SIGPIPE.
 * Errors: GM_E_NOTFOUND when no agent is running there; GM_E_IO when the
 * agent closed the connection without answering, did not answer within
 * 5 s (the whole exchange, from connecting to the reply's end, however
 * slowly its bytes come: whoever listens may not be our agent), or
 * answered more than len - 1 bytes (read no further); GM_E_INVAL for a
 * request longer than GM_CONTROL_REQUEST_MAX.  err says which.  The reply
 * is the peer's bytes as they came: print it only through core/text.h. */
int gm_control_request(const char *data_dir, const char *request, char *reply, size_t len,
                       struct gm_err *err);

#endif /* GM_AGENT_CONTROL_H */
