"""The fuzz loops' mutations (tests/python/test_*.py): random insertions of given pieces, cuts and
duplications of a sequence (a source's characters, a log's lines)."""


def mutate(rng, seq, pieces, ops=6, insert=0.4, cut=0.7, cut_len=20, dup_len=40):
    """A mutated copy of the list `seq`: 1 to `ops` operations, each an insertion of one of `pieces`
    (a list, spliced in) with probability `insert`, a cut of up to `cut_len` items up to `cut`, else a
    duplication of up to `dup_len` items from elsewhere."""
    s = list(seq)
    for _ in range(rng.randint(1, ops)):
        i = rng.randrange(len(s) + 1)
        op = rng.random()
        if op < insert:
            s[i:i] = list(rng.choice(pieces))
        elif op < cut:
            del s[i:i + rng.randint(1, cut_len)]
        else:
            j = rng.randrange(len(s) + 1)
            s[i:i] = s[j:j + rng.randint(1, dup_len)]
    return s
