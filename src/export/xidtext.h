/* xidtext.h -- dcgm-exporter's err_msg text for an Xid (src/export/xidtext.c). */
#ifndef GM_EXPORT_XIDTEXT_H
#define GM_EXPORT_XIDTEXT_H

/* The text dcgm-exporter 4.x puts in err_msg for Xid xid: its table's entry
 * ("" where the table has none), "Unknown Error" outside the table (also
 * for a negative xid).  A static string; never NULL. */
const char *gm_xid_text(long long xid);

#endif
