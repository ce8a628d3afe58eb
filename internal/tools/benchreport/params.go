package benchreport

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mmgate/mmgate/internal/tools/benchgw"
)

// GatewayParams are the settings of a gateway benchmark shown on its page.
type GatewayParams struct {
	URL, Images, Model               string
	ImageFiles, Requests, MaxTokens  int
	Levels                           []int
	Duration, Timeout, ProbeInterval time.Duration
	NoProbe                          bool
}

// List is the parameters in display order.
func (p GatewayParams) List() []Param {
	probe := "off"
	if !p.NoProbe {
		probe = "one text request every " + p.ProbeInterval.String()
		if p.ProbeInterval < 0 {
			probe = "text requests back to back"
		}
	}
	levels := make([]string, len(p.Levels))
	for i, n := range p.Levels {
		levels[i] = strconv.Itoa(n)
	}
	return []Param{
		{Name: "gateway", Value: p.URL},
		{Name: "model", Value: p.Model},
		{Name: "images", Value: fmt.Sprintf("%s (%d files)", p.Images, p.ImageFiles)},
		{Name: "concurrency levels", Value: strings.Join(levels, ", ")},
		{Name: "image requests per level", Value: strconv.Itoa(p.Requests)},
		{Name: "time cap per level", Value: p.Duration.String()},
		{Name: "max_tokens", Value: strconv.Itoa(p.MaxTokens)},
		{Name: "text probe", Value: probe},
		{Name: "request timeout", Value: p.Timeout.String()},
	}
}

// TransportParams are the settings of a transport benchmark in display
// order; shm describes the shared-memory directory ("" leaves it out).
func TransportParams(sizes []int, paths []string, runs, warmup int, shm string) []Param {
	sz := make([]string, len(sizes))
	for i, n := range sizes {
		sz[i] = fmt.Sprintf("%g MiB", float64(n)/(1<<20))
	}
	ps := []Param{
		{Name: "sizes", Value: strings.Join(sz, ", ")},
		{Name: "paths", Value: strings.Join(paths, ", ")},
		{Name: "measured runs per size and path", Value: strconv.Itoa(runs)},
		{Name: "warm-up runs", Value: strconv.Itoa(warmup)},
	}
	if shm != "" {
		ps = append(ps, Param{Name: "shared memory", Value: shm})
	}
	return ps
}

// SaveGateway writes the report of a gateway benchmark's runs into dir
// (WriteGateway) and returns the page's path.
func SaveGateway(dir string, h Host, params []Param, runs []*benchgw.Report) (string, error) {
	g := &Gateway{Meta: meta("mmgate gateway benchmark", h, params), Runs: runs}
	return filepath.Join(dir, HTMLFile), WriteGateway(dir, g)
}

// SaveTransport writes the report of a transport benchmark's results into
// dir (WriteTransport) and returns the page's path.
func SaveTransport(dir string, h Host, params []Param, res []TransportResult) (string, error) {
	t := &Transport{Meta: meta("mmgate transport benchmark", h, params), Results: res}
	return filepath.Join(dir, HTMLFile), WriteTransport(dir, t)
}

func meta(title string, h Host, params []Param) Meta {
	return Meta{Title: title, GeneratedAt: time.Now().UTC(), Host: h, Parameters: params}
}
