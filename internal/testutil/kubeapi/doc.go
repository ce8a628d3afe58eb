// Package kubeapi is a scripted Kubernetes API server for tests: it serves
// the Pod list and watch endpoints (GET /api/v1/pods and
// /api/v1/namespaces/{ns}/pods, with labelSelector) the way kube-apiserver
// does, enough for client-go's informers to run against it unchanged:
//
//   - lists with metadata.resourceVersion; watches from a resourceVersion,
//     replaying the retained history, as a chunked stream of JSON events,
//     with a pod that stops (starts) matching the selector sent as DELETED
//     (ADDED);
//   - the streaming list (watch with sendInitialEvents=true and
//     resourceVersionMatch=NotOlderThan): the current objects as ADDED
//     events, then a BOOKMARK annotated k8s.io/initial-events-end, then the
//     changes; with Options.NoWatchList it is refused with 422 Invalid, as
//     a server without the WatchList feature refuses it;
//   - 410 Gone for a watch from a resource version older than the retained
//     history (after Expire, a silent change, or a restart that lost it),
//     sent as an ERROR event in the stream, as the watch cache sends it;
//   - dropped watches (DropWatches), a server that goes away and comes back
//     on the same address (Stop, Start), bearer tokens over TLS with a CA
//     that Kubeconfig writes into a kubeconfig file.
//
// Tests drive it with Apply, Update, Terminate and Delete (each one event),
// and read Requests to check what the client sent. It is for tests only;
// every method is safe for concurrent use.
package kubeapi
