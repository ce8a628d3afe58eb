package benchreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mmgate/mmgate/internal/tools/benchgw"
)

// File names inside a report directory.
const (
	JSONFile = "report.json"
	HTMLFile = "index.html"
)

// WriteGateway writes dir/report.json and dir/index.html for g, creating dir
// if needed. Each file is written whole or not at all (temporary file, then
// rename).
func WriteGateway(dir string, g *Gateway) error {
	var page bytes.Buffer
	if err := RenderGatewayHTML(&page, g); err != nil {
		return err
	}
	doc, err := GatewayJSON(g)
	if err != nil {
		return err
	}
	return writeDir(dir, doc, page.Bytes())
}

// WriteTransport writes dir/report.json and dir/index.html for t.
func WriteTransport(dir string, t *Transport) error {
	var page bytes.Buffer
	if err := RenderTransportHTML(&page, t); err != nil {
		return err
	}
	doc, err := TransportJSON(t)
	if err != nil {
		return err
	}
	return writeDir(dir, doc, page.Bytes())
}

// GatewayJSON is the report.json document of g ({"kind": "gateway", ...}).
func GatewayJSON(g *Gateway) ([]byte, error) {
	c := *g
	c.Parameters = nonNil(c.Parameters)
	if c.Runs == nil {
		c.Runs = []*benchgw.Report{}
	}
	return marshal(gatewayJSON{Kind: KindGateway, Gateway: &c})
}

// TransportJSON is the report.json document of t ({"kind": "transport", ...}).
func TransportJSON(t *Transport) ([]byte, error) {
	c := *t
	c.Parameters = nonNil(c.Parameters)
	if c.Results == nil {
		c.Results = []TransportResult{}
	}
	return marshal(transportJSON{Kind: KindTransport, Transport: &c})
}

func nonNil(p []Param) []Param {
	if p == nil {
		return []Param{}
	}
	return p
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("report json: %w", err)
	}
	return b.Bytes(), nil
}

func writeDir(dir string, doc, page []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{JSONFile, doc}, {HTMLFile, page}} {
		if err := writeFile(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
