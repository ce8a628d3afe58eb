package benchreport

import (
	"errors"
	"runtime"
	"time"

	"github.com/mmgate/mmgate/internal/tools/benchgw"
	"github.com/mmgate/mmgate/internal/tools/transportbench"
)

// ErrNoData is returned when a report has nothing to draw (no run, no result).
var ErrNoData = errors.New("no benchmark data")

// Meta is what every report says about itself: its title, when it was made,
// on which host, and with which parameters.
type Meta struct {
	Title       string    `json:"title"`
	GeneratedAt time.Time `json:"generated_at"`
	Host        Host      `json:"host"`
	// Parameters are the run's settings in display order.
	Parameters []Param `json:"parameters"`
}

// Param is one run parameter, as shown to people.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Host describes the machine and the program that produced a report.
type Host struct {
	Hostname      string `json:"hostname,omitempty"`
	OS            string `json:"os"`
	Arch          string `json:"arch"`
	CPUs          int    `json:"cpus"`
	GOMAXPROCS    int    `json:"gomaxprocs"`
	CPUModel      string `json:"cpu_model,omitempty"`
	GoVersion     string `json:"go_version"`
	MmgateVersion string `json:"mmgate_version"`
	// Cgo says whether the program was built with the C decoders.
	Cgo bool `json:"cgo"`
}

// RuntimeHost fills the facts the Go runtime knows; the caller adds the
// hostname, CPU model, mmgate version and cgo flag.
func RuntimeHost() Host {
	return Host{
		OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(),
	}
}

// Gateway is a gateway benchmark report: one run per concurrency level, in
// the order they ran (normally increasing concurrency).
type Gateway struct {
	Meta
	Runs []*benchgw.Report `json:"runs"`
}

// Transport is a transport benchmark report.
type Transport struct {
	Meta
	Results []TransportResult `json:"results"`
}

// TransportResult is one size × path row of `mmgate bench transport`, as
// its --json output prints it.
type TransportResult = transportbench.Result

// Transport path names with a role in the report (the ratio and the floor).
const (
	PathInlineTCP  = transportbench.PathInlineTCP
	PathInlineUnix = transportbench.PathInlineUnix
	PathShm        = transportbench.PathShm
	PathShmReuse   = transportbench.PathShmReuse
	PathMemcpy     = transportbench.PathMemcpy
)

// Report kinds, the "kind" field of report.json.
const (
	KindGateway   = "gateway"
	KindTransport = "transport"
)

// gatewayJSON and transportJSON are the report.json documents.
type gatewayJSON struct {
	Kind string `json:"kind"`
	*Gateway
}

type transportJSON struct {
	Kind string `json:"kind"`
	*Transport
}
