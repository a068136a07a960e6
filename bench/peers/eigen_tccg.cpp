// The Eigen Tensor peer of bench/tccg.py: any contraction of two row-major
// f64 tensors, then a shuffle into the result's index order, single-threaded
// (default device). Ranks and the number of contracted pairs are template
// arguments, so the ones the suite needs are instantiated at build time
// (TCCG_RANKS, a list of X(rankA, rankB, pairs) that tccg.py passes with
// -D); the pairs and the shuffle are read from the command line.
//
// Run: eigen_tccg RANK_A RANK_B PAIRS "a0,b0;a1,b1" "s0,s1,..." REPS OUT.bin
// A.npy B.npy
//   pairs: dimensions of A and B contracted together (0-based);
//   shuffle: for each result dimension, the dimension of A.contract(B)
//   (A's free dimensions, then B's) that it is.
#include "peers.h"
#include <array>
#include <sstream>
#include <string>
#include <unsupported/Eigen/CXX11/Tensor>
#include <vector>

#ifndef TCCG_RANKS
#define TCCG_RANKS X(3, 2, 1)
#endif

template <int N>
using CM = Eigen::TensorMap<const Eigen::Tensor<double, N, Eigen::RowMajor>,
                            Eigen::Aligned>;

static std::vector<long> numbers(const std::string &text) {
  std::vector<long> out;
  std::string item;
  std::stringstream stream(text);
  while (std::getline(stream, item,
                      text.find(';') != std::string::npos ? ';' : ','))
    out.push_back(std::stol(item));
  return out;
}

template <int RA, int RB, int K>
static int run(const std::string &pairText, const std::string &shuffleText,
               int reps, const char *out, const npy_t &a, const npy_t &b) {
  constexpr int RC = RA + RB - 2 * K;
  std::array<Eigen::Index, RA> da;
  std::array<Eigen::Index, RB> db;
  for (int i = 0; i < RA; ++i)
    da[i] = a.shape[i];
  for (int i = 0; i < RB; ++i)
    db[i] = b.shape[i];
  CM<RA> A(a.data, da);
  CM<RB> B(b.data, db);
  std::array<Eigen::IndexPair<int>, K> pairs;
  std::stringstream pairStream(pairText);
  std::string pair;
  for (int k = 0; k < K; ++k) {
    if (!std::getline(pairStream, pair, ';')) {
      fprintf(stderr, "error: %d pairs expected\n", K);
      return 2;
    }
    size_t comma = pair.find(',');
    pairs[k] = Eigen::IndexPair<int>(std::stoi(pair.substr(0, comma)),
                                     std::stoi(pair.substr(comma + 1)));
  }
  std::array<int, RC> shuffle;
  std::vector<long> order = numbers(shuffleText);
  if ((int)order.size() != RC) {
    fprintf(stderr, "error: a shuffle of %d dimensions expected\n", RC);
    return 2;
  }
  for (int i = 0; i < RC; ++i)
    shuffle[i] = (int)order[i];
  Eigen::Tensor<double, RC, Eigen::RowMajor> C;
  PT_TIME("tccg", reps, C = A.contract(B, pairs).shuffle(shuffle));
  raw_save(out, C.data(), C.size());
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 10) {
    fprintf(stderr,
            "usage: %s RANK_A RANK_B PAIRS PAIR_LIST SHUFFLE REPS OUT A.npy "
            "B.npy\n",
            argv[0]);
    return 2;
  }
  int ra = atoi(argv[1]), rb = atoi(argv[2]), k = atoi(argv[3]),
      reps = atoi(argv[6]);
  npy_t a = npy_load(argv[8]), b = npy_load(argv[9]);
  if (a.ndim != ra || b.ndim != rb) {
    fprintf(stderr, "error: the inputs' ranks are %d and %d\n", a.ndim, b.ndim);
    return 2;
  }
#define X(RA, RB, K)                                                           \
  if (ra == RA && rb == RB && k == K)                                          \
    return run<RA, RB, K>(argv[4], argv[5], reps, argv[7], a, b);
  TCCG_RANKS
#undef X
  fprintf(stderr, "error: ranks %d, %d with %d pairs not built (TCCG_RANKS)\n",
          ra, rb, k);
  return 2;
}
