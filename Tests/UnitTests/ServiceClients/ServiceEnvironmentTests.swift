import CurlHTTP
import Foundation
import Testing

@testable import ServiceClients

@Suite("Backend configuration and credentials")
struct ServiceEnvironmentTests {
    @Test("a backend is on when its URL is set; a missing credential names the variable and the file")
    func servicesFromEnvironment() throws {
        #expect(ServiceEnvironment(["DISCERN_LANDMARK_URL": "http://x"]).configuredServiceNames == ["landmark"])
        let missing = ServiceEnvironment(["DISCERN_OOTO_URL": "http://x", "DISCERN_OOTO_APP_ID": "id"])
        let problem = #expect(throws: ServiceError.self) {
            _ = try missing.clients(gate: UnlimitedRateGate(), maxConcurrentCalls: 1)
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
        let environment = ServiceEnvironment(["DISCERN_CREDENTIALS_DIR": folder.path])

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        #expect(throws: ServiceError.self) { _ = try environment.secret("DISCERN_UNISSEY_API_KEY") }

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let secret = try #require(try environment.secret("DISCERN_UNISSEY_API_KEY"))
        #expect(secret.value == "s3cr3t-value")
        #expect("\(secret)" == "<redacted>")
        #expect(String(reflecting: secret) == "<redacted>")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("s3cr3t"))
    }

    @Test("a Kubernetes Secret as mounted: symlinks through ..data, 0440 with the pod's group, is accepted; world-readable never")
    func kubernetesSecretLayout() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-k8s-\(UUID())")
        let version = folder.appendingPathComponent("..2026_11_22_20_00_00.123456789")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = version.appendingPathComponent("DISCERN_OOTO_APP_KEY")
        try Data("k8s-secret-value".utf8).write(to: file)
        #expect(chown(file.path, getuid(), getegid()) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("..data").path, withDestinationPath: version.lastPathComponent)
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("DISCERN_OOTO_APP_KEY").path,
            withDestinationPath: "..data/DISCERN_OOTO_APP_KEY")
        let environment = ServiceEnvironment(["DISCERN_CREDENTIALS_DIR": folder.path])

        try FileManager.default.setAttributes([.posixPermissions: 0o440], ofItemAtPath: file.path)
        #expect(try environment.secret("DISCERN_OOTO_APP_KEY")?.value == "k8s-secret-value", "checked where the links lead")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: file.path)
        let refused = #expect(throws: ServiceError.self) { _ = try environment.secret("DISCERN_OOTO_APP_KEY") }
        #expect(refused?.description.contains("other users") == true)
        #expect(try ServiceEnvironment(["DISCERN_CREDENTIALS_DIR": folder.path]).secret("DISCERN_MISSING") == nil)
    }

    @Test("every value is checked at start: numbers finite and in range, URLs http(s) with a host, choices known")
    func valuesChecked() {
        let bad: [[String: String]] = [
            ["DISCERN_LANDMARK_URL": "http://x", "DISCERN_HTTP_TIMEOUT_SECONDS": "1e300"],
            ["DISCERN_LANDMARK_URL": "http://x", "DISCERN_HTTP_TIMEOUT_SECONDS": "nan"],
            ["DISCERN_LANDMARK_URL": "ftp://x"],
            ["DISCERN_LANDMARK_URL": "not a url"],
            ["DISCERN_LANDMARK_URL": "https://host/path?key=secret"],
            ["DISCERN_LANDMARK_URL": "http://x", "DISCERN_LANDMARK_UNSURE_BELOW": "2"],
            ["DISCERN_OOTO_URL": "http://x", "DISCERN_OOTO_APP_ID": "a", "DISCERN_OOTO_APP_KEY": "b", "DISCERN_OOTO_CHECK_LIVENESS": "maybe"],
            ["DISCERN_AZURE_FACE_ENDPOINT": "http://x", "DISCERN_AZURE_FACE_KEY": "k", "DISCERN_AZURE_FACE_RECOGNITION_MODEL": "recognition_9"],
            ["DISCERN_AZURE_FACE_ENDPOINT": "http://x", "DISCERN_AZURE_FACE_KEY": "k", "DISCERN_AZURE_FACE_PERSON_GROUP": "../../admin"],
            ["DISCERN_DISCERNER_URL": "http://x", "DISCERN_DISCERNER_MAX_BYTES": "-5"]
        ]
        for variables in bad {
            let problem = #expect(throws: ServiceError.self) {
                _ = try ServiceEnvironment(variables).clients(gate: UnlimitedRateGate(), maxConcurrentCalls: 1)
            }
            #expect(problem.map { !$0.description.contains("\n") } == true, "one line: \(String(describing: problem))")
        }
    }

    @Test("Retry-After is read from the header, an HTTP date, or Azure's message")
    func retryAfter() {
        #expect(RetryAfter.fromMessage("Rate limit is exceeded. Try again in 26 seconds.") == 26)
        #expect(RetryAfter.fromMessage("Try again later") == nil)
        #expect(RetryAfter.fromMessage("try again in 99999 seconds") == 3600)
    }
}
