// Package access reads what decides who may talk to mmgate and whom it
// trusts: the API keys clients send, the TLS configurations of the HTTP
// listener, of the connections to grpcs:// workers and of the reference
// worker's gRPC listener (mutual TLS with a client CA), and the group that
// may read the gateway's shared-memory segments.
//
// Each function reads files and returns a value for an Options struct
// (server.Options.APIKeys, a *tls.Config, shm.Options.GID). TLS is 1.2 or
// later everywhere. Errors name the settings as the command line spells
// them (--tls-cert), since they reach the operator unchanged. The package
// has no state.
package access
