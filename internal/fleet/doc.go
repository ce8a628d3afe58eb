// Package fleet keeps the gateway's engine at the worker set a discovery
// provider reports: a Fleet is the discovery.Sink of package discovery,
// implemented on the engine's Add and Remove, plus the state the gateway
// shows about its workers (the mmgate_workers{state} and
// mmgate_discovery_pods{state} metrics, and the "discovery" details of
// /health and /health/ready).
//
// # Contract
//
// AddWorker starts using a worker at once: it is registered in the engine,
// which reaches it in the background (protocol, info, health) and puts it
// in the rotation when it answers — unless its URL failed recently, in
// which case the registration waits until the URL's discovery.Backoff
// allows it. A URL fails when its worker is removed before it was ever
// reached, or within Options.FlapWindow of its registration (a flapping
// pod), so a pod that keeps coming and going is re-dialled after 1 s, 2 s,
// 4 s ... up to a minute, never in a tight loop. RemoveWorker takes the
// worker out of the rotation at once; its requests in flight finish and its
// connection closes when the last one ends (engine.Remove). UpdateWorker
// re-registers the worker when what the engine was told changed (its
// runtime or served model name), and only records other changes.
//
// Discovery owns only the workers it added: a discovered URL that is also
// a static worker (--worker) is left to the static configuration, and
// removing the pod does not remove it.
//
// # Concurrency
//
// A Fleet is safe for concurrent use. Its Sink methods return at once
// (the engine dials in the background; a delayed registration runs on a
// timer), as discovery.Tracker requires. Close stops the pending
// registrations; the workers already registered stay with the engine, which
// closes them.
package fleet
