// Package cluster holds system tests of the gateway past one host: `mmgate
// serve --service-discovery` watching a scripted Kubernetes API server
// (package kubeapi) whose pods are reference workers — `mmgate worker`
// processes listening on 127.0.0.x addresses as pod IPs — and the routing
// policies over several workers. Each request carries an X-Request-Id, and
// the gateway's access log (worker=URL) says which worker served it.
package cluster
