import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// Any graph the loader accepts evaluates every query without a trap, in bounded time: built
/// graphs mutated as the `artifact-structured` fuzz target mutates them (seeded, a few hundred),
/// each refused with a located error, or loaded and evaluated (`artifactProblem`: every product,
/// entitlement and feature with a few amounts, three states, three instants, both environments).
@Suite struct MutatedGraphTests {
    /// The examples, the tour and a few generated rule sets (soft limits and lots among them),
    /// built. (The limits fixture, with its
    /// constraints 256 levels deep, is the fuzzer's: too slow for a debug build here.)
    static let bases: [[UInt8]] = {
        let files = ["examples/api.entl", "examples/photos.entl", "examples/subscriptions.entl",
                     "examples/crossplatform.entl", "examples/selling.entl", "Tests/Fixtures/valid/tour.entl"]
        var sources = files.map { SourceFile(path: $0, text: try! readRepoFile($0)) }
        for seed in UInt64(1)...9 {
            let c = DifferentialCase(seed: seed, focus: [.general, .credits, .commercial][Int(seed) % 3])
            sources.append(SourceFile(path: "d.entl", text: c.rules))
        }
        return sources.map { source in
            RuleGraphArtifact.encode(Compiler.compile([source], lint: false).graph!, compiler: "entlc test")
        }
    }()

    @Test func everyLoadedMutantEvaluatesEveryQuery() {
        let clock = ContinuousClock()
        var refused = 0, loaded = 0
        for seed in UInt64(1)...200 {
            var mutator = ArtifactMutator(random: SeededRandom(seed: seed))
            // Sometimes two rounds: a mutant of a mutant reaches shapes one round does not.
            var mutant = MutatedGraphTests.bases[Int(seed) % MutatedGraphTests.bases.count]
            for _ in 0..<(seed % 4 == 0 ? 2 : 1) { mutant = mutator.mutate(mutant) ?? [] }
            let start = clock.now
            if let error = refusal(of: mutant, { _ in }) {
                refused += 1
                #expect(error.path.hasPrefix("graph") && !error.message.isEmpty, "seed \(seed): \(error)")
            } else {
                loaded += 1
                #expect(artifactProblem(mutant) == nil, "seed \(seed)")
            }
            #expect(clock.now - start < .seconds(5), "seed \(seed)")
        }
        // Both outcomes are common: the mutations reach the checks and get past them.
        #expect(refused >= 50 && loaded >= 40, "refused \(refused), loaded \(loaded)")
    }
}
