package main

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"net/netip"
	"time"

	"github.com/mmgate/mmgate/internal/admission"
	"github.com/mmgate/mmgate/internal/limits"
	"github.com/mmgate/mmgate/internal/server"
)

// limitFlags are the gateway's limits against slow, hostile and greedy
// clients (internal/server Options; the logic lives in internal/limits).
// On the command line 0 turns a limit off where the server's options read
// zero as their default.
type limitFlags struct {
	bodyTimeout    time.Duration
	bodyMinRate    byteSize
	bodyGrace      time.Duration
	maxUploads     int
	maxUploadBytes byteSize
	queueTimeout   time.Duration
	stallTimeout   time.Duration
	clientInFlight int
	clientRate     float64
	clientBurst    int
	trustedProxies stringList
	maxConns       int
	headerTimeout  time.Duration
	maxHeaderBytes byteSize
	sendBuffer     byteSize
}

func (f *limitFlags) register(fs *flag.FlagSet) {
	f.bodyMinRate, f.maxUploadBytes, f.maxHeaderBytes = server.DefaultBodyMinRate, server.DefaultMaxUploadBytes, server.DefaultMaxHeaderBytes
	f.sendBuffer = server.DefaultSendBuffer
	fs.DurationVar(&f.bodyTimeout, "body-read-timeout", server.DefaultBodyReadTimeout, "a request body that sends no byte for this long is answered 408 and its connection closed (0: no limit)")
	fs.Var(&f.bodyMinRate, "body-min-rate", "bytes per second a request body must keep after --body-rate-grace, else 408 (0: no limit)")
	fs.DurationVar(&f.bodyGrace, "body-rate-grace", server.DefaultBodyRateGrace, "head start of a request body before --body-min-rate applies")
	fs.IntVar(&f.maxUploads, "max-uploads", server.DefaultMaxUploads, "requests whose bodies are being received (or wait for a processing slot) at once; over it: 429")
	fs.Var(&f.maxUploadBytes, "max-upload-bytes", "memory held by the bodies of those requests; over it: 429")
	fs.DurationVar(&f.queueTimeout, "queue-timeout", 0, fmt.Sprintf("how long a request whose body is in waits for a processing slot when --max-in-flight are taken, and a request with media for tensor memory (--max-tensor-bytes-in-flight), then 503 (0: no queue for a slot, 429 at once; tensor memory waits %v)", admission.DefaultTimeout))
	fs.DurationVar(&f.stallTimeout, "client-stall-timeout", server.DefaultClientStallTimeout, "a response the client takes nothing of for this long is cut: connection closed, generation aborted, slot freed (0: no limit)")
	fs.IntVar(&f.clientInFlight, "client-max-in-flight", 0, "requests at once per client (API key, else client address); over it: 429 (0: no limit)")
	fs.Float64Var(&f.clientRate, "client-rate", 0, "requests per second per client, a token bucket; over it: 429 with Retry-After (0: no limit)")
	fs.IntVar(&f.clientBurst, "client-burst", 0, "requests a client may send at once under --client-rate (0: the rate rounded up)")
	fs.Var(&f.trustedProxies, "trusted-proxy", "address range (CIDR) of proxies whose X-Forwarded-For names the client (repeatable)")
	fs.IntVar(&f.maxConns, "max-connections", server.DefaultMaxConnections, "HTTP connections open at once; new ones wait in the backlog (0: no limit)")
	fs.DurationVar(&f.headerTimeout, "header-timeout", server.DefaultHeaderTimeout, "time to read a request's headers")
	fs.Var(&f.maxHeaderBytes, "max-header-bytes", "size limit of a request's headers (431 over it)")
	fs.Var(&f.sendBuffer, "send-buffer-bytes", "socket send buffer of each HTTP connection: bounds what a client that stops reading swallows before --client-stall-timeout counts (0: the kernel's autotuning, megabytes)")
}

// apply sets the limits in o.
func (f *limitFlags) apply(o *server.Options) error {
	if f.bodyTimeout < 0 || f.bodyGrace < 0 || f.queueTimeout < 0 || f.stallTimeout < 0 || f.maxConns < 0 ||
		f.clientInFlight < 0 || !(f.clientRate >= 0) || math.IsInf(f.clientRate, 0) || f.clientBurst < 0 {
		return fmt.Errorf("--body-read-timeout, --body-rate-grace, --queue-timeout, --client-stall-timeout, --max-connections, --client-max-in-flight, --client-rate and --client-burst must not be negative")
	}
	if f.headerTimeout <= 0 || f.maxUploads <= 0 || f.maxUploadBytes <= 0 {
		return fmt.Errorf("--header-timeout, --max-uploads and --max-upload-bytes must be positive")
	}
	// A flag's 0 ("no limit") is the option's negative value (off): the
	// options read 0 as their default.
	o.BodyReadTimeout, o.BodyRateGrace, o.ClientStallTimeout = cmp.Or(f.bodyTimeout, -1), cmp.Or(f.bodyGrace, -1), cmp.Or(f.stallTimeout, -1)
	o.BodyMinRate, o.SendBuffer, o.MaxConnections = cmp.Or(int64(f.bodyMinRate), -1), cmp.Or(int(f.sendBuffer), -1), cmp.Or(f.maxConns, -1)
	o.MaxUploads, o.MaxUploadBytes, o.QueueTimeout = f.maxUploads, int64(f.maxUploadBytes), f.queueTimeout
	o.HeaderTimeout, o.MaxHeaderBytes = f.headerTimeout, int(f.maxHeaderBytes)
	o.Clients = limits.ClientOptions{MaxInFlight: f.clientInFlight, Rate: f.clientRate, Burst: f.clientBurst}
	for _, s := range f.trustedProxies {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return fmt.Errorf("--trusted-proxy %q: want an address or CIDR range", s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		o.TrustedProxies = append(o.TrustedProxies, p.Masked())
	}
	return nil
}
