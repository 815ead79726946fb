import Foundation
import SampleImages
import JobQueue
import Postgres
import TestFixtures
import Testing

/// deploy/grafana's dashboard against the real, migrated schema with some results in it.
@Suite("Grafana dashboard", .integrationTimeLimit)
struct GrafanaDashboardTests {
    static let dashboard = ChaosJobs.repository.appendingPathComponent("deploy/grafana/discern-dashboard.json")

    /// Every query target of every panel: (panel title, SQL or PromQL).
    static func targets(_ key: String) throws -> [(String, String)] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dashboard)) as? [String: Any])
        let panels = try #require(object["panels"] as? [[String: Any]])
        return panels.flatMap { panel in
            ((panel["targets"] as? [[String: Any]]) ?? []).compactMap { target in
                (target[key] as? String).map { (panel["title"] as? String ?? "?", $0) }
            }
        }
    }

    /// Grafana's PostgreSQL macros, expanded the way Grafana does for a 6-hour range.
    static func expandMacros(_ sql: String) throws -> String {
        var text = sql
        let filter = try Regex(#"\$__timeFilter\(([a-z_.]+)\)"#)
        text = text.replacing(filter) { "\($0.output[1].substring ?? "") BETWEEN now() - interval '6 hours' AND now()" }
        let group = try Regex(#"\$__timeGroupAlias\(([a-z_.]+), *'(\d+)m'\)"#)
        text = text.replacing(group) { match in
            let column = match.output[1].substring ?? "", minutes = Int(match.output[2].substring ?? "1") ?? 1
            return "to_timestamp(floor(extract(epoch FROM \(column)) / \(minutes * 60)) * \(minutes * 60)) AS time"
        }
        return text
    }

    @Test("every SQL query runs against the migrated schema as discern_reader and returns rows where there is data")
    func sqlQueriesRun() async throws {
        let queries = try Self.targets("rawSql")
        #expect(queries.count >= 10)
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let paths = try (1...3).map { try folder.write(SampleImages.photo(width: 320, height: 240, seed: $0), as: "g\($0).jpg") }
                let broken = try folder.write(Data("nope".utf8), as: "broken.jpg")
                let database = Database(conninfo: conninfo)
                try await database.withConnection { try JobQueue.enqueue($0, paths: paths + [broken], batch: "grafana") }
                try await TestSimulator.with { try await TestWorker.drain(conninfo, simulator: $0) }
                for (title, sql) in queries {
                    let expanded = try Self.expandMacros(sql)
                    #expect(!expanded.contains("$__"), "\(title): a Grafana macro this test does not know")
                    // As Grafana's login would: a role in discern_reader, which sees no raw answers.
                    // Its rows counted whole (`q.*`), so every column of every row is still computed.
                    let rows = try await database.withConnection { connection in
                        try connection.transaction { connection in
                            try connection.execute("SET LOCAL ROLE discern_reader")
                            return try connection.value("SELECT count(q.*) FROM (\(unescaped: expanded)) AS q", as: Int.self)
                        }
                    }
                    #expect(rows > 0, "\(title) returned nothing")
                }
            }
        }
    }

    @Test("imports into any Grafana: __inputs, a datasource variable per kind, no fixed datasource uid in any panel")
    func importsAnywhere() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.dashboard)) as? [String: Any])
        let inputs = try #require(object["__inputs"] as? [[String: Any]])
        #expect(Set(inputs.compactMap { $0["pluginId"] as? String }) == ["grafana-postgresql-datasource", "prometheus"])
        let variables = ((object["templating"] as? [String: Any])?["list"] as? [[String: Any]]) ?? []
        let datasourceVariables = Dictionary(
            uniqueKeysWithValues: variables.filter { $0["type"] as? String == "datasource" }
                .compactMap { variable in (variable["name"] as? String).map { ($0, variable["query"] as? String ?? "") } })
        #expect(datasourceVariables == ["postgres": "grafana-postgresql-datasource", "prometheus": "prometheus"])
        for variable in variables {
            let current = ((variable["current"] as? [String: Any])?["value"] as? String) ?? ""
            #expect(inputs.contains { "${\($0["name"] as? String ?? "")}" == current }, "the variable defaults to an import input: \(current)")
        }
        let panels = try #require(object["panels"] as? [[String: Any]])
        for panel in panels {
            let sources = [panel["datasource"]] + ((panel["targets"] as? [[String: Any]]) ?? []).map { $0["datasource"] }
            for case let source as [String: Any] in sources {
                let uid = source["uid"] as? String ?? "", kind = source["type"] as? String ?? ""
                #expect(uid == "${\(kind == "prometheus" ? "prometheus" : "postgres")}", "\(panel["title"] ?? "?"): datasource uid \(uid)")
            }
        }
    }

    @Test("every metric the Prometheus panels use is one discern exports")
    func metricNamesExist() throws {
        let exported = try String(
            contentsOf: ChaosJobs.repository.appendingPathComponent("Sources/Observability/MetricHelp.swift"),
            encoding: .utf8)
        let name = try Regex(#"discern_[a-z_]+"#)
        for (title, expression) in try Self.targets("expr") {
            for match in expression.matches(of: name) {
                let metric = String(expression[match.range])
                let base = ["_bucket", "_sum", "_count"].reduce(metric) { $0.hasSuffix($1) ? String($0.dropLast($1.count)) : $0 }
                #expect(exported.contains("\"\(base)\""), "\(title): \(metric) is not exported")
            }
        }
    }
}
