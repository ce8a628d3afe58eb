// Package discovery is the provider-neutral half of worker discovery: the
// Worker a provider finds, the Sink the gateway implements to receive the
// desired worker set, the Tracker that turns each level-triggered desired
// set into ordered Add/Update/Remove calls, and Backoff, the per-URL redial
// damping the gateway applies to workers that come and go.
//
// # Contract
//
// A provider (the Kubernetes one is in package kube) computes the complete
// desired set on every pass (level-triggered: a lost event is repaired by
// the next pass) and hands it to Tracker.Apply. The Tracker diffs it against
// the set it reported before and calls the Sink, from the goroutine that
// calls Apply, in this order: removals first (sorted by URL), then updates,
// then additions (sorted by URL). Identity is the URL plus the pod UID: a
// worker whose URL is kept by a new pod UID (a pod restarted on the same IP)
// is a RemoveWorker of the old one followed by an AddWorker of the new one,
// never an update. UpdateWorker reports a change of the other fields (model,
// runtime, pod name, node) under the same URL and UID. A newly usable worker
// is reported in the pass that first sees it; there is no damping here.
//
// What the gateway must do with the calls: AddWorker starts using the worker
// at once (probe it, dial it) unless Backoff says its URL failed recently;
// RemoveWorker takes it out of rotation at once while requests in flight
// finish, and closes its connection when the last one ends; a URL that keeps
// being removed and added (a flapping pod) or that fails to dial is not
// re-dialled sooner than Backoff allows, so a flapping pod cannot cause a
// tight dial loop.
//
// # Concurrency
//
// Tracker serialises Apply and Status under one lock; Sink calls are made
// with that lock held, so a Sink must return promptly (dial in the
// background) and must not call back into the Tracker. Backoff is safe for
// concurrent use. Worker and Status are plain values.
package discovery
