/***************************************************************************************************
 * Copyright (c) Fixture Authors. A licence block: never a description.
 **************************************************************************************************/
/*! \file
    \brief Extractor fixture: the constructs a real header throws at it.
*/
#pragma once
#define MACRO_WITH_BRACES(x) { x; }
#define CONTINUED(x) \
  do { x; } while (0)

namespace outer {
namespace {
struct HiddenInAnonymous { int x; };
}

// A class template with a base and a nested class (the nested one is not listed).
template <class T, int N = (3 > 2)>
struct alignas(16) Holder : public Base<T> {
  struct Nested { void f() {} };
  T data[N];
  void member() { if (N) { data[0] = T{}; } }
};

// A specialization.
template <>
struct Holder<float, 4> { };

/// Function with a default argument holding braces and a lambda.
inline int with_defaults(int a = int{3}, int (*f)(int) = [](int x) { return x; })
{
  return f(a);
}

template <class T> decltype(auto) returns_decltype(T&& t) { return t; }

__global__ void __launch_bounds__(128, 1) kernel_with_bounds(float* p) { p[0] = 1.f; }

// Out-of-class member definition: not a namespace-scope function.
template <class T> void Holder<T, 1>::member() { }

bool operator==(Holder<int, 1> const&, Holder<int, 1> const&) { return true; }

enum class Mode : int { A, B };
enum Plain { P0, P1 };
typedef unsigned long long u64_t;
using Alias = Holder<int, 2>;
template <class T> using TAlias = Holder<T, 8>;
using namespace std;
struct Forward;
int declared_only(int);

const char *text = "a { brace in a string";
const char ch = '{';
int table[] = {1, 2, 3};

#if defined(ONE)
struct Branchy {
#else
struct Branchy : Base<int> {
#endif
  int y;
};

extern "C" {
int c_entry(void) { return 0; }
}

} // namespace outer

namespace a::b::c {
void deep() {}
}
