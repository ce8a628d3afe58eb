// Package charttest renders the Helm chart in ../mmgate offline with Helm's
// own Go packages and checks the result: every object decodes strictly
// (an unknown or misspelt field fails) into its k8s.io/api (or Prometheus
// Operator) type, and the facts that matter hold: probes, the drain timing,
// RBAC verbs, selectors that match the pods' labels, the shared /dev/shm in
// sidecar mode, and mmgate flags that mmgate has. It is a module of its own
// so that the product's go.mod does not carry Helm.
package charttest
