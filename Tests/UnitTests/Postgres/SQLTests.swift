import Testing

@testable import Postgres

/// A statement written inline numbers its own parameters, and its rows are read by position
/// into the types asked for (docs/sql.md, "Where the statements live").
@Suite("Inline statements: parameters by interpolation, rows by position")
struct SQLTests {
    @Test("each interpolated value is the next $n, sent apart from the text; nil is NULL")
    func numbering() {
        let job = 7
        let kind: String? = nil
        let statement: SQL = "UPDATE discern.jobs SET error_kind = \(kind), attempts = \(3) WHERE id = \(job) AND state = 'running'"
        #expect(statement.text == "UPDATE discern.jobs SET error_kind = $1, attempts = $2 WHERE id = $3 AND state = 'running'")
        #expect(statement.parameters.map { $0?.postgresText } == [nil, "3", "7"])
        #expect(statement.handWritten == nil)
    }

    @Test("a part that is SQL itself keeps its values, renumbered after the statement's own")
    func parts() {
        let condition: SQL = "state = \("dead") AND attempts > \(2)"
        let statement: SQL = "SELECT count(*) FROM discern.jobs WHERE service = \("discerner") AND \(condition) AND id > \(10)"
        #expect(statement.text == "SELECT count(*) FROM discern.jobs WHERE service = $1 AND state = $2 AND attempts > $3 AND id > $4")
        #expect(statement.parameters.map { $0?.postgresText } == ["discerner", "dead", "2", "10"])
        let name = "discern_test_0a1b"
        #expect(("DROP DATABASE \(unescaped: name)" as SQL).text == "DROP DATABASE discern_test_0a1b")
    }

    @Test("a $n written by hand is found, so running it is refused instead of binding by position")
    func handWritten() {
        let statement: SQL = "SELECT state FROM discern.jobs WHERE id = $1"
        #expect(statement.handWritten == "$1")
        #expect(("DO $$ BEGIN PERFORM 1; END $$" as SQL).handWritten == nil)
        let huge: SQL = "SELECT $99999999999999999999999"
        let outer: SQL = "SELECT \(1), (\(huge))"
        #expect(outer.text == "SELECT $1, (SELECT $99999999999999999999999)" && outer.handWritten != nil)
    }

    @Test("a row is read by position; a wrong count of types, a NULL into a non-optional or a non-number fails naming the column")
    func decoding() throws {
        let row = Row(columns: ["state", "attempts", "error_kind", "ok"], values: ["dead", "3", nil, "t"])
        let (state, attempts, kind, ok) = try row.decode(String.self, Int.self, String?.self, Bool.self)
        #expect(state == "dead" && attempts == 3 && kind == nil && ok)
        #expect(throws: PostgresError.self) { try row.decode(String.self, Int.self) }
        do {
            _ = try row.decode(String.self, Int.self, String.self, Bool.self)
            Issue.record("a NULL was read as a String")
        } catch let error as PostgresError {
            #expect(error.message.contains("error_kind"), "\(error)")
        }
        do {
            _ = try row.decode(Int.self, Int.self, String?.self, Bool.self)
            Issue.record("dead was read as an integer")
        } catch let error as PostgresError {
            #expect(error.message.contains("state"), "\(error)")
        }
    }
}
