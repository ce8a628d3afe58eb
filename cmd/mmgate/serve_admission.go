package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/internal/admission"
)

// admissionFlags are the tensor memory budget's settings.
type admissionFlags struct {
	maxTensorBytes  byteSize
	maxRequestBytes byteSize
	queueTimeout    time.Duration
}

func (a *admissionFlags) register(fs *flag.FlagSet) {
	fs.Var(&a.maxTensorBytes, "max-tensor-bytes-in-flight", fmt.Sprintf(
		"tensor memory budget: planned bytes of the requests between admission and hand-off to their worker, plus the tensor cache and idle shared-memory segments; a request that does not fit waits (--queue-timeout); default (0) %.0f%% of physical RAM, or of the cgroup's memory limit when lower",
		100*admission.DefaultFraction))
	fs.Var(&a.maxRequestBytes, "max-request-tensor-bytes", "planned tensor bytes one request may take; over it: 413 at once, before any media is decoded (0: the budget)")
	fs.DurationVar(&a.queueTimeout, "queue-timeout", 0, fmt.Sprintf(
		"how long a request waits for tensor memory before a 503 with Retry-After (0: %v)", admission.DefaultTimeout))
}

func (a *admissionFlags) validate() error {
	if a.queueTimeout < 0 {
		return fmt.Errorf("--queue-timeout %v: must not be negative", a.queueTimeout)
	}
	return nil
}

// budgetBasis says where the tensor memory budget comes from, for the
// effective configuration log.
type budgetBasis struct {
	bytes  int64
	source string // "flag", or admission.Memory.Source
	memory int64  // the machine's memory the default is a share of
}

// newAdmission builds the controller of the tensor memory budget.
func (a *admissionFlags) newAdmission(reg prometheus.Registerer) (*admission.Controller, budgetBasis, error) {
	basis := budgetBasis{bytes: int64(a.maxTensorBytes), source: "flag"}
	if basis.bytes == 0 {
		b, m, err := admission.DefaultBudget()
		if err != nil {
			return nil, basis, fmt.Errorf("--max-tensor-bytes-in-flight: no default: %w", err)
		}
		basis = budgetBasis{bytes: b, source: m.Source, memory: m.Bytes}
	}
	c, err := admission.New(admission.Options{Budget: basis.bytes, PerRequest: int64(a.maxRequestBytes), Timeout: a.queueTimeout, Registerer: reg})
	return c, basis, err
}
