import Foundation
import Imaging
import Testing

@testable import ServiceClients

/// The registry is the one list of services: the clients a worker builds, the variables it reads
/// and the docs all agree with it.
@Suite("Service registry")
struct ServiceRegistryTests {
    /// Every variable of every service set, with a value each accepts.
    static let everything: [String: String] = [
        "DISCERN_DISCERNER_URL": "http://127.0.0.1:9", "DISCERN_OOTO_URL": "http://127.0.0.1:9", "DISCERN_OOTO_APP_ID": "a",
        "DISCERN_OOTO_APP_KEY": "k", "DISCERN_AZURE_FACE_ENDPOINT": "http://127.0.0.1:9", "DISCERN_AZURE_FACE_KEY": "k",
        "DISCERN_LANDMARK_URL": "http://127.0.0.1:9", "DISCERN_UNISSEY_URL": "http://127.0.0.1:9", "DISCERN_UNISSEY_API_KEY": "k"
    ]

    @Test("a worker with every URL set builds one client per service, in the registry's order, each named as listed")
    func servicesFollowTheRegistry() throws {
        let environment = ServiceEnvironment(Self.everything)
        #expect(environment.configuredServiceNames == Services.names)
        let clients = try environment.clients(gate: UnlimitedRateGate(), maxConcurrentCalls: 1)
        #expect(clients.map(\.name) == Services.names)
        #expect(Set(Services.names).count == Services.all.count, "names are unique")
        for (client, service) in zip(clients, Services.all) {
            // A service with an image policy takes images for its main action, one without takes videos.
            switch client.input(for: service.actions[0]) {
            case .image(let policy): #expect(policy == service.imagePolicy, "\(service.name)")
            case .video: #expect(service.imagePolicy == nil, "\(service.name)")
            case .none: Issue.record("\(service.name)'s main action sends no file")
            }
        }
    }

    @Test("prepare's policy is the worker's: DISCERN_DISCERNER_MAX_BYTES and the rest apply to both")
    func preparePolicyIsTheWorkers() throws {
        let environment = ServiceEnvironment(["DISCERN_DISCERNER_MAX_BYTES": "500000", "DISCERN_DISCERNER_TRANSFORM_FLOOR": "0"])
        let policy = try #require(try environment.imagePolicy(for: Services.discerner))
        #expect(policy.maxBytes == 500_000 && policy.transformFloor == nil)
        let worker = try ServiceEnvironment(Self.everything.merging(environment.variables) { $1 })
            .clients(gate: UnlimitedRateGate(), maxConcurrentCalls: 1).first { $0.name == Services.discerner.name }
        guard case .image(let used) = worker?.input(for: "analyze") else { Issue.record("no image policy"); return }
        #expect(used == policy)
        #expect(try ServiceEnvironment([:]).imagePolicy(for: Services.unissey) == nil)
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardizedFileURL

    @Test("docs/services.md documents every service's variables")
    func variablesAreDocumented() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("docs/services.md"), encoding: .utf8)
        for service in Services.all {
            for variable in [service.urlVariable] + service.variables {
                #expect(text.contains(variable), "\(service.name): \(variable) is not in docs/services.md")
            }
        }
    }

    @Test("the Kubernetes deployment has one worker overlay per service, each listed, in the registry's order")
    func deploymentFollowsTheRegistry() throws {
        let workers = Self.repository.appendingPathComponent("deploy/kubernetes/workers")
        let folders = try FileManager.default.contentsOfDirectory(atPath: workers.path).sorted()
        #expect(folders == Services.names.sorted())
        let kustomization = try String(contentsOf: Self.repository.appendingPathComponent("deploy/kubernetes/kustomization.yaml"), encoding: .utf8)
        let listed = kustomization.split(separator: "\n").compactMap { line in
            line.trimmingCharacters(in: .whitespaces).hasPrefix("- workers/") ? String(line.split(separator: "/").last ?? "") : nil
        }
        #expect(listed == Services.names)
    }
}
