import CurlHTTP
import Foundation
import Testing

@testable import Backends

@Suite("Backend configuration and credentials")
struct BackendEnvironmentTests {
    @Test("a backend is on when its URL is set; a missing credential names the variable and the file")
    func backendsFromEnvironment() throws {
        #expect(BackendEnvironment(["DISCERN_LANDMARK_URL": "http://x"]).configuredBackendNames == ["landmark"])
        let missing = BackendEnvironment(["DISCERN_OOTO_URL": "http://x", "DISCERN_OOTO_APP_ID": "id"])
        let problem = #expect(throws: ConfigurationProblem.self) {
            _ = try missing.backends(gate: UnlimitedRateGate(), maxConcurrentCalls: 1)
        }
        #expect(problem?.description.contains("DISCERN_OOTO_APP_KEY") == true)
    }

    @Test("a credential file is read only when nobody else can read it")
    func credentialFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-creds-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("DISCERN_UNISSEY_API_KEY")
        try Data("s3cr3t-value\n".utf8).write(to: file)
        let environment = BackendEnvironment(["DISCERN_CREDENTIALS_DIR": folder.path])

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        #expect(throws: ConfigurationProblem.self) { _ = try environment.secret("DISCERN_UNISSEY_API_KEY") }

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let secret = try #require(try environment.secret("DISCERN_UNISSEY_API_KEY"))
        #expect(secret.value == "s3cr3t-value")
        #expect("\(secret)" == "<redacted>")
        #expect(String(reflecting: secret) == "<redacted>")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("s3cr3t"))
    }

    @Test("Retry-After is read from the header, an HTTP date, or Azure's message")
    func retryAfter() {
        #expect(RetryAfter.fromMessage("Rate limit is exceeded. Try again in 26 seconds.") == 26)
        #expect(RetryAfter.fromMessage("Try again later") == nil)
        #expect(RetryAfter.fromMessage("try again in 99999 seconds") == 3600)
    }
}
