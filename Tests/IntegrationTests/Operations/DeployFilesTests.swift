import Foundation
import Testing

/// deploy/ as CI checks it: systemd units through `systemd-analyze verify` and `security` (3.0 or
/// lower), the alerting rules through promtool, the rendered Kubernetes manifests through the
/// Kubernetes schemas (strict) and KEDA resources through their CRD schemas and documented fields.
@Suite("Deploy files", .integrationTimeLimit)
struct DeployFilesTests {
    @Test("systemd units verify and are sandboxed, alert rules pass promtool, every rendered manifest passes its schema")
    func deployFilesValidate() async throws {
        let script = ChaosJobs.repository.appendingPathComponent("scripts/validate-deploy.sh").path
        let output = try await TestDatabase.with { conninfo in
            try await Subprocess.run("/bin/bash", [script, try WorkerProcess.binary.path, conninfo])
        }
        #expect(output.contains("ScaledObject discern-worker-ooto query runs as discern_reader: 0"), "\(output)")
        #expect(output.contains("systemd units: ok") && output.contains("discern-worker.service: exposure"), "\(output)")
        #expect(output.contains("SUCCESS: 12 rules found") && output.contains("SUCCESS"), "\(output)")
        #expect(
            output.contains("ScaledObject discern-worker") && output.contains("Deployment discern-worker")
                && output.contains("CronJob discern-prune ok") && output.contains("TriggerAuthentication discern-postgres ok"), "\(output)")
        // The overlay for photos only in a bucket is rendered and checked too, and both nightly
        // CronJobs' command lines enqueue yesterday under their photo root.
        #expect(
            output.contains("rendered deploy/kubernetes-bucket with kubectl kustomize")
                && output.contains("runs: discern enqueue /srv/photos/") && output.contains("runs: discern enqueue s3://fleet-uploads/"),
            "\(output)")
    }

    @Test("the README's run command installs what the main job needs and nothing only the tests use")
    func runCommandInstallsNoTestPackage() async throws {
        let script = ChaosJobs.repository.appendingPathComponent("scripts/install-deps.sh").path
        let main = try await Subprocess.run("/bin/bash", [script, "--list"])
        let withTests = try await Subprocess.run("/bin/bash", [script, "--test", "--list"])
        #expect(main.contains("libvips-dev") && main.contains("postgresql") && main.contains("libcurl4-openssl-dev"), "\(main)")
        for testOnly in ["chromium", "prometheus", "pgbouncer", "systemd", "python3-pip", "postgresql-contrib"] {
            #expect(!main.contains(testOnly) && withTests.contains(testOnly), "\(testOnly): \(main) / \(withTests)")
        }
    }
}
