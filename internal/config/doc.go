// Package config gives mmgate's subcommands their settings and reports
// them.
//
// Every flag --some-name is also the environment variable
// MMGATE_SOME_NAME and the config-file key some_name (--config FILE, a
// YAML or JSON object). Parse resolves them with the precedence flag >
// environment > file > default. A repeatable flag (a List: StringList,
// Secrets) takes a comma-separated list in the environment and a list in
// the file; keys that name no flag of the subcommand are left to it (the
// gateway's per-worker overrides under `workers:`, read by Workers).
//
// Effective turns the resolved flags into the attributes of the
// effective-configuration log line: every flag under its file key (a
// repeatable one in the plural), with the values of Secrets replaced by
// their count, and the facts a command resolves at start (the model
// folder it materialized, the shared-memory budget it probed) in place
// of the flag of the same key. Nothing is listed by hand, so a new flag
// is logged as soon as it is registered.
//
// Only the commands (cmd/) read flags, the environment and files; they do
// it through this package. Errors and usage go to the FlagSet's output, as
// the command line conventions have them: the reason on stderr, exit
// status 2 (ExitStatus). A FlagSet and its values belong to the goroutine
// that parses them.
package config
