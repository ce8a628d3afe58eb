// Package gateway builds and runs mmgate's gateway from one Options value:
// the shared-memory pool and its janitor, the engine over static,
// embedded and discovered workers, the media sources and decoders, the
// tensor memory budget, the pipeline, the HTTP server and its listener,
// and, with Options.RenderOnly, the render API with no worker at all.
//
// Run owns everything it builds: it serves until its context ends, then
// shuts down gracefully (in-flight requests may finish for
// Options.ShutdownTimeout; the engine waits for the aborts of cut
// requests; the shared-memory segments this process leaves are removed)
// and returns.
//
// The zero value of a field means its documented default (the README's
// table), applied here or by the package the field is handed to, unless
// the field's comment gives 0 a meaning of its own (usually "off", as the
// command line spells it). Options carries values, not sources: the
// command reads flags, the environment and the config file, and the
// gateway reads only the files and directories fields name (the model
// folder, the kubeconfig, the shared-memory directory).
//
// Effective is the effective configuration, derived from the values of
// Options by walking the struct: every field is logged under its `log`
// tag (the command line's config key), so a new option is logged as soon
// as it exists; secrets are reported as a count. Fields tagged "-" are
// reported as facts (TLS on or off, the worker URLs) or not at all
// (loggers, callbacks); Limits, server.Options as the caller built them,
// is left to the caller, whose command line logs its flags.
//
// Run changes process-wide settings (GOMAXPROCS grows by the media
// threads; with discovery, client-go's klog logs to Logger), so a process
// runs one gateway at a time. The values Options holds (slices, TLS
// configurations) must not change while Run runs.
package gateway
