package main

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/mmgate/mmgate/internal/access"
	"github.com/mmgate/mmgate/internal/config"
	"github.com/mmgate/mmgate/internal/gateway"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/shm"
)

// This file answers: how do the serve flags that need parsing become
// gateway options? (The others set their option directly.)

// parseMedia reads the media and transport settings that need parsing.
func (f *serveFlags) parseMedia(o *gateway.Options) error {
	parts := strings.Split(f.background, ",")
	if len(parts) != 3 {
		return fmt.Errorf("--rgba-background %q: want R,G,B", f.background)
	}
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 10, 8)
		if err != nil {
			return fmt.Errorf("--rgba-background %q: %v", f.background, err)
		}
		o.Media.Background[i] = uint8(v)
	}
	for _, s := range f.allowCIDRs {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return fmt.Errorf("--fetch-allow-cidr: %v", err)
		}
		o.Media.AllowCIDRs = append(o.Media.AllowCIDRs, p)
	}
	var err error
	if o.Workers.Transport, err = shm.ParseMode(f.transport); err != nil {
		return fmt.Errorf("--mm-transport: %v", err)
	}
	switch f.mediaOrder {
	case "media_first":
		o.Media.Order = openai.MediaFirst
	case "authored":
		o.Media.Order = openai.Authored
	default:
		return fmt.Errorf("--media-order %q: want media_first or authored", f.mediaOrder)
	}
	return nil
}

// parseAccess reads who may use the gateway and how: the shared-memory
// group, API keys, the client limits and TLS.
func (f *serveFlags) parseAccess(o *gateway.Options) error {
	gid, err := access.ShmGroup(f.shmGroup)
	if err != nil {
		return err
	}
	o.Shm.ShareWithGroup, o.Shm.GID = gid >= 0, max(gid, 0)
	if o.APIKeys, err = access.APIKeys(f.apiKeys.Values(), f.apiKeyFile); err != nil {
		return err
	}
	if o.MetricsAuth && len(o.APIKeys) == 0 {
		return errors.New("--metrics-auth needs --api-key or --api-key-file")
	}
	if err := f.limits.apply(&o.Limits); err != nil {
		return err
	}
	if o.TLS, err = access.ListenerTLS(f.tlsCert, f.tlsKey); err != nil {
		return err
	}
	o.Workers.TLS, err = access.WorkerTLS(f.workerTLSCA, f.workerTLSCert, f.workerTLSKey, f.workerTLSName)
	return err
}

// parseWorkers lists the workers: --worker, else the config file's
// `workers:` with their overrides.
func (f *serveFlags) parseWorkers(o *gateway.Options) error {
	base := o.Workers.Base()
	for _, u := range f.workers {
		w := base
		w.URL = u
		o.Workers.URLs = append(o.Workers.URLs, w)
	}
	if f.config == "" {
		return nil
	}
	ws, err := config.Workers(f.config, base)
	if err == nil && len(f.workers) == 0 {
		o.Workers.URLs = ws
	}
	return err
}
