import Foundation
import Testing

/// deploy/ as CI checks it: systemd units through `systemd-analyze verify`, Kubernetes manifests
/// through the Kubernetes schemas (strict), KEDA resources through their CRD schemas.
@Suite("Deploy files")
struct DeployFilesTests {
    @Test("systemd units verify and every manifest passes its schema")
    func deployFilesValidate() async throws {
        let script = ChaosJobs.repository.appendingPathComponent("scripts/validate-deploy.sh").path
        let output = try await Subprocess.run("/bin/bash", [script, try WorkerProcess.binary.path])
        #expect(output.contains("systemd units: ok"))
        #expect(output.contains("ScaledObject ok") && output.contains("Deployment ok") && output.contains("CronJob ok"), "\(output)")
    }
}
