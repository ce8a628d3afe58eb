package gateway

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/internal/admission"
)

// This file answers: how large is the tensor memory budget, and where
// does it come from?

// Budget is the tensor memory budget as start-up resolved it, for the
// effective-configuration log.
type Budget struct {
	Bytes  int64
	Source string        // "flag" (given), or admission.Memory.Source
	Memory int64         // the machine's memory the default is a share of
	Wait   time.Duration // the effective wait for room
	Per    int64         // the effective per-request limit
}

// NewAdmission builds the controller of the tensor memory budget, whose
// requests wait for room up to wait (0: admission.DefaultTimeout).
func NewAdmission(o BudgetOptions, wait time.Duration, reg prometheus.Registerer) (*admission.Controller, Budget, error) {
	b := Budget{Bytes: o.Bytes, Source: "flag"}
	if b.Bytes == 0 {
		n, m, err := admission.DefaultBudget()
		if err != nil {
			return nil, b, fmt.Errorf("--max-tensor-bytes-in-flight: no default: %w", err)
		}
		b = Budget{Bytes: n, Source: m.Source, Memory: m.Bytes}
	}
	c, err := admission.New(admission.Options{Budget: b.Bytes, PerRequest: o.PerRequest, Timeout: wait, Registerer: reg})
	if err == nil {
		b.Wait, b.Per = c.Timeout(), c.PerRequest()
	}
	return c, b, err
}

// facts are the budget for the effective-configuration log, in place of
// the options' zeros.
func (b Budget) facts() []slog.Attr {
	return []slog.Attr{slog.Int64("max_tensor_bytes_in_flight", b.Bytes), slog.String("max_tensor_bytes_in_flight_source", b.Source),
		slog.Int64("machine_memory", b.Memory), slog.Int64("max_request_tensor_bytes", b.Per), slog.Duration("tensor_memory_wait", b.Wait)}
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
