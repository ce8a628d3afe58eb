// Package kube discovers inference workers among Kubernetes pods: one
// client-go shared informer on Pods, with the label selector sent to the API
// server in every list and watch, feeds a level-triggered reconcile that
// hands the desired worker set to a discovery.Tracker (and so to the
// gateway's discovery.Sink).
//
// # Which pods are workers
//
// A pod is considered when its labels match every KEY=VALUE of the selector
// (re-checked here as well, so a client that does not filter cannot widen
// the set). It is a worker at grpc://<status.podIP>:<port>, port being the
// annotation mmgate.io/port or else Options.Port, with the optional
// annotations mmgate.io/runtime (tokenspeed, vllm or sglang) and
// mmgate.io/model (the served name). It is usable only while
// status.phase is Running, the condition Ready is True, status.podIP is set
// and metadata.deletionTimestamp is unset; leaving that state (a
// terminating pod that is still Ready included) takes it out at the next
// pass, as a Kubernetes Service does. A pod with a bad annotation value is
// reported as invalid and never used. Classify is that decision, as a pure
// function.
//
// # Re-listing and re-watching
//
// Listing and watching are client-go's reflector: the streaming list
// (watch with sendInitialEvents, ended by the initial-events-end bookmark)
// that client-go v0.37 tries first, list then watch against a server that
// refuses it, a re-list after 410 Gone, a re-watch from the last resource
// version after a dropped watch, and backoff while the API server is down.
// Every informer event asks for a reconcile pass at once (bursts collapse
// into one pass); a pass also runs every Options.Resync. No pass runs before
// the informer's first complete list, so a partial view never removes
// workers.
//
// # Client
//
// Pods are listed and watched in JSON through a client-go REST client for
// the core/v1 group whose scheme holds core/v1 only (NewPodClient): the List
// and Watch of client-go's generated typed Pods client, without the rest of
// it. The generated typed core/v1 client links every API group's types and
// the server-side-apply schema: a small program that runs an informer
// through it grows by about 35 MB, against about 18 MB with this client
// (mmgate itself grows by about 12.5 MB). Any PodClient can be injected
// instead (tests pass client-go's fake clientset's Pods).
//
// # Concurrency
//
// Run owns the informer and makes every Sink call from its own goroutine, in
// order. Status may be called from any goroutine.
package kube
