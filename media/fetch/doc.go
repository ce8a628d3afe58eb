// Package fetch turns a media URL from a chat request (image_url.url,
// video_url.url, …) into bytes, under a policy that bounds what may be read
// and from where.
//
// # Sources
//
//   - data: URLs (RFC 2397, data:[<mediatype>][;base64],<data>) are decoded
//     in one pass under the byte cap: no more than MaxBytes+1 decoded bytes
//     are ever held. Percent escapes are decoded in both payload kinds.
//     Base64 follows browsers' forgiving-base64 (whitespace skipped, padding
//     optional but only at the end) and also accepts the URL-safe alphabet
//     ('-' and '_'); invalid base64 is ErrBadURL. See DataURL.Decode.
//   - http: and https: URLs are fetched with GET through a pooled client,
//     with a total timeout, a byte cap counted on the bytes actually read
//     (the Content-Length is only used to refuse early and to size the first
//     buffer), and a redirect limit.
//   - file: URLs are read only below configured roots (none by default).
//
// The declared media type (data: header, Content-Type) is reported in
// Media.MIME but never trusted: decoders sniff the bytes. MIMEMismatch is an
// optional check of the declaration against the bytes.
//
// # Network policy
//
// By default an http(s) URL may only reach public unicast addresses.
// Refused: loopback (127/8, ::1), private (10/8, 172.16/12, 192.168/16),
// shared CGNAT space (100.64/10), link-local (169.254/16, fe80::/10),
// unique-local (fc00::/7), unspecified (0/8, ::), multicast, broadcast,
// reserved and documentation ranges, IPv6 outside 2000::/3, the IPv4-mapped,
// IPv4-compatible and 6to4 forms of any IPv4 address, the NAT64 well-known
// prefix 64:ff9b::/96 when it embeds a refused IPv4 address, and the cloud
// metadata endpoints (169.254.169.254, 169.254.170.2, fd00:ec2::254,
// 100.100.100.200, 192.0.0.192). See ClassifyAddr.
//
// The check is made twice. Before any request (and before following each
// redirect) the URL's scheme and host are checked: literal hosts are parsed
// in every spelling browsers and inet_aton accept (127.1, 2130706433,
// 0x7f.1, 017700000001, [::ffff:127.0.0.1], trailing dots) and
// non-canonical numeric hosts are refused outright because their meaning
// depends on the parser; loopback and metadata names (localhost,
// *.localhost, metadata.google.internal, …) are refused by name; userinfo
// (user:pass@) is refused. Then, for every new connection, the transport's
// dialer resolves the name itself, refuses the connection if any resolved
// address is outside the policy, and dials the checked IP address, so what is
// connected to is exactly what was checked (no DNS rebinding window) and a
// redirect can only reach what the first URL could. No proxy is used.
//
// Policy.AllowedHosts and Policy.AllowedCIDRs open specific hosts and address
// ranges (for a model repository on a private network, or a test server on
// 127.0.0.1). An allowed name may resolve to any address; an allowed range
// is accepted whatever name led to it.
//
// # File policy
//
// A file: URL's path is cleaned, must lie below one of Policy.FileRoots,
// must still lie below a root once symlinks are resolved, and is opened
// through os.Root (openat-style: no component, symlink or "..", can leave the
// root even if the tree changes meanwhile) with O_NONBLOCK; only regular
// files are read, under the same byte cap.
//
// # Defaults
//
// The zero Policy allows data:, http: and https: (file: needs FileRoots),
// with MaxBytes 32 MiB, Timeout 10 s (the whole fetch, redirects included)
// and 3 redirects.
//
// # Errors
//
// Every error is an *Error whose Kind is one of the sentinels below; the
// HTTP server maps them (in its single error table) as follows:
//
//	ErrBadURL     400 invalid_request_error   malformed URL or data: payload
//	ErrForbidden  403 media_url_forbidden     refused by the policy
//	ErrTooLarge   413 too_large               over MaxBytes
//	ErrFetch      422 unprocessable_media     remote 4xx/5xx (Error.Status), too many redirects, connection failure, missing file
//	ErrTimeout    504 timeout                 Timeout or the caller's deadline passed
//
// A caller's cancelled context yields ErrFetch wrapping context.Canceled.
//
// # Concurrency
//
// A Fetcher is immutable after New and safe for concurrent use; its
// http.Client keeps idle connections per host (Close releases them). The
// Resolver and Dialer given in Options must be safe for concurrent use.
package fetch
