use criterion::{criterion_group, criterion_main, Criterion};
use gogo::perft::perft;
use gogo::position::Position;

fn bench_perft(c: &mut Criterion) {
    let start = Position::startpos();
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    g.bench_function("startpos depth 5", |b| b.iter(|| perft(&start, 5)));
    g.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
