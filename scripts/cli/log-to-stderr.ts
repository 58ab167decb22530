// Imported first by the CLI, before anything reads the environment: its log lines go to standard
// error, so that what a command prints (its --json output above all) is all of standard output.
process.env.LOG_DESTINATION ??= "stderr";
