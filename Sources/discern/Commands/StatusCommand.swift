import ArgumentParser
import JobQueue
import Postgres

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Jobs by state, and the most common errors.")

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let (states, errors) = try await Database(conninfo: database.conninfo).withConnection { connection in
            let states = try connection.query("SELECT backend, state, jobs FROM discern.queue_depth ORDER BY backend, state")
            let errors = try connection.query("""
                SELECT error_kind, count(*) AS jobs, max(last_error) AS example
                FROM discern.jobs WHERE state = 'dead' GROUP BY error_kind ORDER BY count(*) DESC LIMIT 10
                """)
            return (states, errors)
        }
        print(TextTable.render(headers: ["backend", "state", "jobs"],
                               rows: try states.map { [try $0.string("backend"), try $0.string("state"), try $0.string("jobs")] }))
        if errors.count > 0 {
            print("\ndead jobs by error kind:")
            print(TextTable.render(headers: ["error_kind", "jobs", "example"], rows: try errors.map {
                [try $0.optionalString("error_kind") ?? "-", try $0.string("jobs"), String((try $0.optionalString("example") ?? "").prefix(100))]
            }))
        }
    }
}
