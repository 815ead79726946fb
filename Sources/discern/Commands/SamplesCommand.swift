import ArgumentParser
import Foundation
import Imaging

struct SamplesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples", abstract: "Generate photo-like sample images with libvips (for the demo and for trying discern out).")

    @Argument(help: "Folder to write into (created if missing).")
    var folder: String

    @Option(help: "How many images.")
    var count: Int = 6

    func run() async throws {
        let directory = URL(fileURLWithPath: folder)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sizes = [(1600, 1200), (4000, 3000), (1200, 1600), (6000, 4000), (800, 600), (3000, 2000)]
        for index in 0..<count {
            let (width, height) = sizes[index % sizes.count]
            let data = try SampleImages.photo(width: width, height: height, seed: index + 1)
            let file = directory.appendingPathComponent(String(format: "sample-%03d.jpg", index + 1))
            try data.write(to: file)
            print("\(file.path)  \(width)x\(height)  \(data.count / 1024) KB")
        }
        // One image over the 10 MB budget, so the demo shows preparation at work.
        let large = try SampleImages.noise(width: 3000, height: 2400)
        let file = directory.appendingPathComponent("sample-large-noise.jpg")
        try large.write(to: file)
        print("\(file.path)  3000x2400  \(large.count / 1024) KB")
    }
}
