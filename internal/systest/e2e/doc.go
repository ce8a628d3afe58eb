// Package e2e holds end-to-end tests: the mmgate binary is built once, then
// `mmgate serve` and `mmgate worker` run as separate processes and the
// official OpenAI Go client talks to the gateway, as a user's program would.
package e2e
