// No file description here: this comment sits right above code.
namespace cute
{
template <class Engine, class Layout>
struct Tensor;

/* A multi-line doc comment
   above a function template. */
template <class Shape, class Stride>
constexpr auto
make_layout(Shape const& shape, Stride const& stride)
{
  return 0;
}

// first line
// second line, one block with the first
template <class T>
struct Wrapper
{
  T value;
};

struct
{
  int anonymous;
} instance;

} // end namespace cute
