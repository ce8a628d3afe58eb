package main

import (
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/internal/admission"
)

// admissionFlags are the tensor memory budget's settings; its wait is
// --queue-timeout (limitFlags), or admission.DefaultTimeout when that is 0
// (no queue for processing slots: refusing large requests at once would
// turn every burst of them into errors).
type admissionFlags struct {
	maxTensorBytes  byteSize
	maxRequestBytes byteSize
}

func (a *admissionFlags) register(fs *flag.FlagSet) {
	fs.Var(&a.maxTensorBytes, "max-tensor-bytes-in-flight", fmt.Sprintf(
		"tensor memory budget: planned bytes of the requests between admission and hand-off to their worker, plus the tensor cache and idle shared-memory segments; a request that does not fit waits (--queue-timeout, %v when 0); default (0) %.0f%% of physical RAM, or of the cgroup's memory limit when lower",
		admission.DefaultTimeout, 100*admission.DefaultFraction))
	fs.Var(&a.maxRequestBytes, "max-request-tensor-bytes", "planned tensor bytes one request may take; over it: 413 at once, before any media is decoded (0: the budget)")
}

// budgetBasis says where the tensor memory budget comes from, for the
// effective configuration log.
type budgetBasis struct {
	bytes  int64
	source string        // "flag", or admission.Memory.Source
	memory int64         // the machine's memory the default is a share of
	wait   time.Duration // the effective wait for room
	per    int64         // the effective per-request limit
}

// newAdmission builds the controller of the tensor memory budget, whose
// requests wait for room up to wait (0: admission.DefaultTimeout).
func (a *admissionFlags) newAdmission(wait time.Duration, reg prometheus.Registerer) (*admission.Controller, budgetBasis, error) {
	basis := budgetBasis{bytes: int64(a.maxTensorBytes), source: "flag"}
	if basis.bytes == 0 {
		b, m, err := admission.DefaultBudget()
		if err != nil {
			return nil, basis, fmt.Errorf("--max-tensor-bytes-in-flight: no default: %w", err)
		}
		basis = budgetBasis{bytes: b, source: m.Source, memory: m.Bytes}
	}
	c, err := admission.New(admission.Options{Budget: basis.bytes, PerRequest: int64(a.maxRequestBytes), Timeout: wait, Registerer: reg})
	if err == nil {
		basis.wait, basis.per = c.Timeout(), c.PerRequest()
	}
	return c, basis, err
}

// facts are the budget as start-up resolved it, for the effective
// configuration log (they replace the flags' zeros).
func (b budgetBasis) facts() []slog.Attr {
	return []slog.Attr{slog.Int64("max_tensor_bytes_in_flight", b.bytes), slog.String("max_tensor_bytes_in_flight_source", b.source),
		slog.Int64("machine_memory", b.memory), slog.Int64("max_request_tensor_bytes", b.per), slog.Duration("tensor_memory_wait", b.wait)}
}

// inlineCopies is how many copies of an inline tensor exist while it is
// sent: the gateway's buffer and gRPC's encoded message, and with the
// embedded worker its decoded message in this process too.
func inlineCopies(embedded bool) int {
	if embedded {
		return 3
	}
	return 2
}
