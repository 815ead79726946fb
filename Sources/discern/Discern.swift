import ArgumentParser

@main
struct Discern: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discern",
        abstract: "Batch image analysis: jobs in PostgreSQL, images prepared with libvips, results back in PostgreSQL.",
        subcommands: [
            MigrateCommand.self, EnqueueCommand.self, WorkCommand.self, StatusCommand.self, ResultsCommand.self,
            PrepareCommand.self, PruneCommand.self, SimulateCommand.self, SamplesCommand.self,
        ])
}
