#!/usr/bin/env python3
"""HTTPS webhooks: TLS verification is always on.

A local HTTPS server with a certificate from a test CA (made with openssl):
- with ca-file naming that CA the alert is delivered;
- without it the request fails on the certificate (no silent trust);
- with the CA but a certificate for another host name it fails too (the
  host name is verified, not only the chain).
"""
import os

from notify_lib import Driver, Peer, Scratch, check, main, make_pki, need, openssl


def other_host_cert(d):
    """A certificate from the same CA for other.example only."""
    with open(os.path.join(d, "other.ext"), "w") as f:
        f.write("subjectAltName=DNS:other.example\nextendedKeyUsage=serverAuth\n"
                "basicConstraints=CA:FALSE\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "other.key", "-out", "other.csr", "-subj", "/CN=other.example", cwd=d)
    openssl("x509", "-req", "-in", "other.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "other.crt", "-days", "2", "-extfile", "other.ext", cwd=d)
    return os.path.join(d, "other.crt"), os.path.join(d, "other.key")


def test_https_ca_file():
    need("openssl")
    with Scratch("nh") as d:
        pki = make_pki(d)
        good = Peer(tls=(pki["server_crt"], pki["server_key"]))
        wrong = Peer(tls=other_host_cert(d))
        drv = None
        try:
            drv = Driver(d, f"""[notify.trusted]
type = webhook
url = {good.url('/ok')}
ca-file = {pki['ca']}
retries = 0

[notify.untrusted]
type = webhook
url = {good.url('/ok')}
retries = 0

[notify.wrongname]
type = webhook
url = {wrong.url('/ok')}
ca-file = {pki['ca']}
retries = 0
""")
            drv.send(summary="over TLS")
            st = drv.must_wait("trusted", "sent", 1)
            drv.must_wait("untrusted", "failed", 1)
            st = drv.must_wait("wrongname", "failed", 1)
            print("without ca-file:", st["untrusted"]["last_error"])
            print("wrong host name:", st["wrongname"]["last_error"])
            check(st["trusted"]["sent"] == 1 and st["trusted"]["failed"] == 0,
                  "delivered with the CA", st)
            check("certificate" in st["untrusted"]["last_error"].lower(),
                  "refused without the CA, on the certificate", st)
            check("127.0.0.1" in st["wrongname"]["last_error"]
                  or "name" in st["wrongname"]["last_error"].lower(),
                  "refused for the host name", st)
            check(st["untrusted"]["sent"] == 0 and st["wrongname"]["sent"] == 0, "nothing sent",
                  st)
            check(len(good.got("/ok")) == 1, "exactly one request got through",
                  len(good.got("/ok")))
            check(len(wrong.got("/ok")) == 0, "none reached the wrong host", len(wrong.got("/ok")))
            drv.stop()
        finally:
            if drv:
                drv.close()
            good.close()
            wrong.close()


if __name__ == "__main__":
    main([test_https_ca_file])
