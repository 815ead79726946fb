import AnalysisModel
import ServiceClients
import CurlHTTP
import Foundation
import Imaging
import SampleImages
import JobQueue
import Simulator
import TestFixtures
import Testing

/// Service clients pointed at a running simulator, with retries short enough for tests.
enum SimulatedServices {
    static func caller(tries: Int = 1, gate: any RateGate = UnlimitedRateGate()) -> ServiceCaller {
        ServiceCaller(
            http: CurlHTTPClient(configuration: .init(threads: 8)), gate: gate, maxConcurrentCalls: 16,
            retry: .init(tries: tries, firstPauseSeconds: 0.05, maxPauseSeconds: 0.2, maxInlineWaitSeconds: 5))
    }

    /// Every service's client, configured the way `discern work` would from the simulator's environment.
    static func all(
        _ simulator: RunningSimulator, gate: any RateGate = UnlimitedRateGate(), tries: Int = 3,
        extra: [String: String] = [:]
    ) throws -> [any AnalysisClient] {
        try ServiceEnvironment(simulator.workerEnvironment.merging(extra) { $1 })
            .clients(
                gate: gate, maxConcurrentCalls: 32,
                retry: .init(tries: tries, firstPauseSeconds: 0.05, maxPauseSeconds: 0.2, maxInlineWaitSeconds: 5))
    }

    static func client<B: AnalysisClient>(_ type: B.Type, _ simulator: RunningSimulator, tries: Int = 1, extra: [String: String] = [:]) throws -> B {
        let clients = try ServiceEnvironment(simulator.workerEnvironment.merging(extra) { $1 })
            .clients(
                gate: UnlimitedRateGate(), maxConcurrentCalls: 16,
                retry: .init(tries: tries, firstPauseSeconds: 0.05, maxPauseSeconds: 0.2, maxInlineWaitSeconds: 5))
        return try #require(clients.compactMap { $0 as? B }.first)
    }
}

enum Uploads {
    /// A photo as a worker would send it: prepared by the service's policy.
    static func photo(width: Int = 640, height: Int = 480, seed: Int = 1) throws -> Upload {
        Upload(image: try ImagePreparer(policy: .discerner).prepare(try SampleImages.photo(width: width, height: height, seed: seed)))
    }

    /// Bytes sent as they are, whatever they hold: for inputs the worker itself would refuse.
    static func raw(_ data: Data, contentType: String = "image/jpeg", fileExtension: String = "jpg") -> Upload {
        Upload(data: data, contentType: contentType, fileExtension: fileExtension)
    }

    /// A minimal MP4 whose boxes tile the file: `ftyp`, a `moov` with a movie header and one
    /// track, and `mdat` holding `bytes` of media. Enough for the box-by-box check.
    static func video(seed: UInt8 = 1, bytes: Int = 4096) -> Data {
        func box(_ type: String, _ payload: Data) -> Data {
            let size = UInt32(8 + payload.count)
            return Data([UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]) + Data(type.utf8) + payload
        }
        let media = Data((0..<max(0, bytes)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
        return box("ftyp", Data("isom".utf8) + Data([0, 0, 2, 0]) + Data("isomiso2".utf8))
            + box("moov", box("mvhd", Data(repeating: 0, count: 100)) + box("trak", box("tkhd", Data(repeating: 0, count: 84))))
            + box("mdat", media)
    }
}

extension AnalysisClient {
    /// Analyses and returns the classified error instead of throwing it.
    func outcome(_ upload: Upload, _ action: String, params: String = "{}") async -> Result<Analysis, ServiceError> {
        do {
            return .success(try await analyze(upload, request: AnalysisRequest(action: action, paramsJSON: params, correlationID: "test-\(UUID())")))
        } catch {
            return .failure(error)
        }
    }
}

extension Result where Failure == ServiceError {
    var error: ServiceError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var value: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
