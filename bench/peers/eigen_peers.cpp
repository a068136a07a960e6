// Eigen Tensor-module peers of bench/run.py (unsupported/Eigen/CXX11/Tensor,
// Debian's libeigen3-dev), row-major f64, single-threaded (default device).
// Adapted from the team's shared/peers/eigen_bench.cpp; sizes come from the
// input files here.
//
// Build (bench/run.py does this, into build/bench-peers/):
//   clang++-22 -O3 -march=native -std=c++17 -I/usr/include/eigen3 eigen_peers.cpp -o eigen_peers
// Run:   eigen_peers CASE REPS OUT.bin IN.npy...          (see peers.h)
// Cases and inputs: k1 (A B), k2 (A B), k3 (u), k4 (a b c d e), k5 (u A),
//   k5h (S D u), c3 (A B C), k6t1 k6t2 k6t3 (A B).
#include <unsupported/Eigen/CXX11/Tensor>
#include <array>
#include <string>
#include "peers.h"

using Eigen::IndexPair;
template <int N> using T = Eigen::Tensor<double, N, Eigen::RowMajor>;
template <int N> using M = Eigen::TensorMap<Eigen::Tensor<double, N, Eigen::RowMajor>, Eigen::Aligned>;
template <int N> using CM = Eigen::TensorMap<const Eigen::Tensor<double, N, Eigen::RowMajor>, Eigen::Aligned>;

template <int N> static CM<N> view(const npy_t &a) {
  std::array<Eigen::Index, N> d;
  for (int i = 0; i < N; ++i) d[i] = a.shape[i];
  return CM<N>(a.data, d);
}

using P1 = std::array<IndexPair<int>, 1>;
using P2 = std::array<IndexPair<int>, 2>;

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s CASE REPS OUT.bin IN.npy...\n", argv[0]);
    return 2;
  }
  std::string cs = argv[1];
  const char *name = argv[1], *out = argv[3];
  int reps = atoi(argv[2]), nin = argc - 4;
  std::vector<npy_t> in;
  for (int i = 0; i < nin; ++i) in.push_back(npy_load(argv[4 + i]));
  auto need = [&](int k) {
    if (nin != k) {
      fprintf(stderr, "error: %s needs %d inputs\n", name, k);
      exit(2);
    }
  };

  if (cs == "k1") {
    need(2);
    auto A = view<2>(in[0]), B = view<2>(in[1]);
    T<2> C(A.dimension(0), B.dimension(1));
    P1 p{IndexPair<int>(1, 0)};
    PT_TIME(name, reps, C = A.contract(B, p));
    raw_save(out, C.data(), C.size());
  } else if (cs == "k2") {
    need(2);
    auto A = view<2>(in[0]), B = view<2>(in[1]);
    T<0> s;
    P2 both{IndexPair<int>(1, 0), IndexPair<int>(0, 1)};  // sum_ij A[i,j] B[j,i]
    PT_TIME(name, reps, s = A.contract(B, both));
    raw_save(out, s.data(), 1);
  } else if (cs == "k3") {
    need(1);
    auto u = view<5>(in[0]);
    std::array<int, 5> perm{0, 3, 2, 1, 4};
    T<5> v(u.dimension(0), u.dimension(3), u.dimension(2), u.dimension(1), u.dimension(4));
    PT_TIME(name, reps, v = u.shuffle(perm));
    raw_save(out, v.data(), v.size());
  } else if (cs == "k4") {
    need(5);
    auto a = view<2>(in[0]), b = view<2>(in[1]), c = view<2>(in[2]), d = view<2>(in[3]),
         e = view<2>(in[4]);
    T<2> z(a.dimension(0), a.dimension(1));
    PT_TIME(name, reps, z = ((a + b) * c) - (d / e));
    raw_save(out, z.data(), z.size());
  } else if (cs == "k5" || cs == "k5h") {
    // v[e,i,j,k] = sum M[i,l] M[j,m] M[k,n] u[e,l,m,n]: u[e,l,m,n] -> [e,l,m,k]
    // -> [e,l,k,j] -> [e,k,j,i], shuffled to [e,i,j,k].
    P1 c3{IndexPair<int>(3, 1)}, c2{IndexPair<int>(2, 1)}, c1{IndexPair<int>(1, 1)};
    std::array<int, 4> sh{0, 3, 2, 1};
    std::array<int, 2> tr{1, 0};
    if (cs == "k5") {
      need(2);
      auto u = view<4>(in[0]);
      auto A = view<2>(in[1]);
      T<4> v(u.dimensions());
      PT_TIME(name, reps, v = u.contract(A, c3).contract(A, c2).contract(A, c1).shuffle(sh));
      raw_save(out, v.data(), v.size());
    } else {
      need(3);
      auto S = view<2>(in[0]);
      auto D = view<4>(in[1]), u = view<4>(in[2]);
      T<2> St = S.shuffle(tr);
      T<4> t(u.dimensions()), v(u.dimensions());
      PT_TIME(name, reps, {
        t = u.contract(St, c3).contract(St, c2).contract(St, c1).shuffle(sh);
        t = D * t;
        v = t.contract(S, c3).contract(S, c2).contract(S, c1).shuffle(sh);
      });
      raw_save(out, v.data(), v.size());
    }
  } else if (cs == "c3") {
    need(3);
    auto A = view<2>(in[0]), B = view<2>(in[1]), C = view<2>(in[2]);
    P1 p{IndexPair<int>(1, 0)};
    T<2> AB(A.dimension(0), B.dimension(1)), D(A.dimension(0), C.dimension(1));
    PT_TIME(name, reps, {
      AB = A.contract(B, p);
      D = AB.contract(C, p);
    });
    raw_save(out, D.data(), D.size());
  } else if (cs == "k6t1") {
    // TCCG ccsd6 "abcd-aebf-dfce" == row-major C[d,c,b,a] = A[f,b,e,a] B[e,c,f,d]
    need(2);
    auto A = view<4>(in[0]), B = view<4>(in[1]);
    P2 p{IndexPair<int>(0, 2), IndexPair<int>(2, 0)};
    std::array<int, 4> sh{3, 2, 0, 1};  // the contraction gives [b,a,c,d]
    T<4> C(B.dimension(3), B.dimension(1), A.dimension(1), A.dimension(3));
    PT_TIME(name, reps, C = A.contract(B, p).shuffle(sh));
    raw_save(out, C.data(), C.size());
  } else if (cs == "k6t2") {
    // TCCG intensli0 "abc-bda-dc" == row-major C[c,b,a] = A[a,d,b] B[c,d]
    need(2);
    auto A = view<3>(in[0]);
    auto B = view<2>(in[1]);
    P1 p{IndexPair<int>(1, 1)};
    std::array<int, 3> sh{2, 1, 0};  // the contraction gives [a,b,c]
    T<3> C(B.dimension(0), A.dimension(2), A.dimension(0));
    PT_TIME(name, reps, C = A.contract(B, p).shuffle(sh));
    raw_save(out, C.data(), C.size());
  } else if (cs == "k6t3") {
    // TCCG ccsd_t0 "abcdef-dega-gfbc" == row-major C[f,e,d,c,b,a] = A[a,g,e,d] B[c,b,f,g]
    need(2);
    auto A = view<4>(in[0]), B = view<4>(in[1]);
    P1 p{IndexPair<int>(1, 3)};
    std::array<int, 6> sh{5, 1, 2, 3, 4, 0};  // the contraction gives [a,e,d,c,b,f]
    T<6> C(B.dimension(2), A.dimension(2), A.dimension(3), B.dimension(0), B.dimension(1),
           A.dimension(0));
    PT_TIME(name, reps, C = A.contract(B, p).shuffle(sh));
    raw_save(out, C.data(), C.size());
  } else {
    fprintf(stderr, "error: unknown case %s\n", name);
    return 2;
  }
  return 0;
}
