package benchreport

import (
	"bufio"
	"os"
	"strings"
)

// ThisHost describes this machine and the running program: RuntimeHost
// plus the hostname, the CPU model and the given mmgate version and cgo
// flag.
func ThisHost(version string, cgo bool) Host {
	h := RuntimeHost()
	h.Hostname, _ = os.Hostname()
	h.CPUModel = cpuModel()
	h.MmgateVersion = version
	h.Cgo = cgo
	return h
}

// cpuModel is the first "model name" of /proc/cpuinfo ("" elsewhere).
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// PrepareDir makes sure dir can hold a report, before a long run.
func PrepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}
