"""The GPT lecture style: a bigram model, then a small character-level transformer.

Written for this project as a specification for `micrograd.torch`: the "mathematical trick"
of self-attention (tril, masked_fill, softmax), a bigram model, then token and position
Embeddings, LayerNorm, masked attention heads with a `tril` buffer, MultiHeadAttention
over an nn.ModuleList, FeedForward as nn.Sequential, residual Blocks, Dropout, AdamW, a
no_grad loss estimate with eval()/train(), and generation with multinomial. Tiny sizes,
a small built-in text. Prints one `name value` per line.
"""

import torch
import torch.nn as nn
from torch.nn import functional as F

# hyperparameters
batch_size = 8  # how many independent sequences will we process in parallel?
block_size = 16  # what is the maximum context length for predictions?
max_iters = 20
eval_interval = 10
learning_rate = 1e-3
device = "cuda" if torch.cuda.is_available() else "cpu"
eval_iters = 5
n_embd = 32
n_head = 2
n_layer = 2
dropout = 0.2

# a small text written for this test (not a real corpus)
text = """The lamplighter walks the harbour road at dusk,
and every lamp he touches hums a little tune.
The gulls reply, the tide turns over stones,
a fisher counts her nets and finds one missing.
WARDEN: Who keeps the light when the keeper sleeps?
CHILD: The moon, sir, and the moon is never tired.
WARDEN: Then let the moon be paid in salt and bread.
The boats come home; their lanterns swing like bells.
Quiet now: the kettle, the clock, the creak of rope,
the baker's cart, the zig and zag of lanes.
By morning, jam and toast and yellow light;
by evening, fog, and one more lamp to light.
"""
text = text * 3

# all the unique characters that occur in this text
chars = sorted(set(text))
vocab_size = len(chars)
print("text_length", len(text))
print("vocab_size", vocab_size)
# create a mapping from characters to integers
stoi = {ch: i for i, ch in enumerate(chars)}
itos = dict(enumerate(chars))


def encode(s):
    """Take a string, output a list of integers."""
    return [stoi[c] for c in s]


def decode(ints):
    """Take a list of integers, output a string."""
    return "".join([itos[i] for i in ints])


print("roundtrip", decode(encode("the moon")) == "the moon")

# train and test splits
data = torch.tensor(encode(text), dtype=torch.long)
print("data_shape", tuple(data.shape))
print("data_dtype", data.dtype)
n = int(0.9 * len(data))  # first 90% will be train, rest val
train_data = data[:n]
val_data = data[n:]


# data loading
def get_batch(split):
    # generate a small batch of data of inputs x and targets y
    data = train_data if split == "train" else val_data
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
    x, y = x.to(device), y.to(device)
    return x, y


# --- the mathematical trick in self-attention -----------------------------------------
torch.manual_seed(1337)
B, T, C = 4, 8, 2  # batch, time, channels
x = torch.randn(B, T, C)
xbow = torch.zeros((B, T, C))
for b in range(B):
    for t in range(T):
        xprev = x[b, :t + 1]  # (t, C)
        xbow[b, t] = torch.mean(xprev, 0)
wei = torch.tril(torch.ones(T, T))
wei = wei / wei.sum(1, keepdim=True)
xbow2 = wei @ x  # (B, T, T) @ (B, T, C) ---> (B, T, C)
print("trick_version2_allclose", torch.allclose(xbow, xbow2, atol=1e-6))
print("trick_version2_maxdiff", (xbow - xbow2).abs().max().item())
tril = torch.tril(torch.ones(T, T))
wei = torch.zeros((T, T))
wei = wei.masked_fill(tril == 0, float("-inf"))
wei = F.softmax(wei, dim=-1)
xbow3 = wei @ x
print("trick_version3_allclose", torch.allclose(xbow, xbow3, atol=1e-6))
print("trick_version3_maxdiff", (xbow - xbow3).abs().max().item())

# version 4: a single head of self-attention
torch.manual_seed(1337)
B, T, C = 4, 8, 32
x = torch.randn(B, T, C)
head_size = 16
key = nn.Linear(C, head_size, bias=False)
query = nn.Linear(C, head_size, bias=False)
value = nn.Linear(C, head_size, bias=False)
k = key(x)  # (B, T, 16)
q = query(x)  # (B, T, 16)
wei = q @ k.transpose(-2, -1) * head_size**-0.5  # (B, T, 16) @ (B, 16, T) ---> (B, T, T)
tril = torch.tril(torch.ones(T, T))
wei = wei.masked_fill(tril == 0, float("-inf"))
wei = F.softmax(wei, dim=-1)
out = wei @ value(x)
print("single_head_out_shape", tuple(out.shape))
print("single_head_wei_row0", wei[0, 0, 0].item())
print("single_head_wei_last_row_sum", wei[0, -1].sum().item())
print("single_head_out_sum", out.sum().item())


# --- the bigram model -------------------------------------------------------------------
class BigramLanguageModel(nn.Module):

    def __init__(self, vocab_size):
        super().__init__()
        # each token directly reads off the logits for the next token from a lookup table
        self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

    def forward(self, idx, targets=None):
        # idx and targets are both (B,T) tensor of integers
        logits = self.token_embedding_table(idx)  # (B,T,C)
        if targets is None:
            loss = None
        else:
            B, T, C = logits.shape
            logits = logits.view(B * T, C)
            targets = targets.view(B * T)
            loss = F.cross_entropy(logits, targets)
        return logits, loss

    def generate(self, idx, max_new_tokens):
        # idx is (B, T) array of indices in the current context
        for _ in range(max_new_tokens):
            logits, _loss = self(idx)
            logits = logits[:, -1, :]  # becomes (B, C)
            probs = F.softmax(logits, dim=-1)  # (B, C)
            idx_next = torch.multinomial(probs, num_samples=1)  # (B, 1)
            idx = torch.cat((idx, idx_next), dim=1)  # (B, T+1)
        return idx


torch.manual_seed(1337)
xb, yb = get_batch("train")
print("xb_shape", tuple(xb.shape))
print("xb_first_row", ",".join(str(v) for v in xb[0].tolist()))
bigram = BigramLanguageModel(vocab_size)
logits, loss = bigram(xb, yb)
print("bigram_logits_shape", tuple(logits.shape))
print("bigram_init_loss", loss.item())
idx = torch.zeros((1, 1), dtype=torch.long)
print("bigram_untrained_sample", repr(decode(bigram.generate(idx, max_new_tokens=30)[0].tolist())))

optimizer = torch.optim.AdamW(bigram.parameters(), lr=1e-2)
for _steps in range(50):
    xb, yb = get_batch("train")
    logits, loss = bigram(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
print("bigram_trained_loss", loss.item())


# --- the transformer --------------------------------------------------------------------
class Head(nn.Module):
    """ one head of self-attention """

    def __init__(self, head_size):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        # input of size (batch, time-step, channels), output (batch, time-step, head size)
        _B, T, _C = x.shape
        k = self.key(x)  # (B,T,hs)
        q = self.query(x)  # (B,T,hs)
        # compute attention scores ("affinities")
        wei = q @ k.transpose(-2, -1) * k.shape[-1]**-0.5  # (B, T, hs) @ (B, hs, T) -> (B, T, T)
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))  # (B, T, T)
        wei = F.softmax(wei, dim=-1)  # (B, T, T)
        wei = self.dropout(wei)
        # perform the weighted aggregation of the values
        v = self.value(x)  # (B,T,hs)
        out = wei @ v  # (B, T, T) @ (B, T, hs) -> (B, T, hs)
        return out


class MultiHeadAttention(nn.Module):
    """ multiple heads of self-attention in parallel """

    def __init__(self, num_heads, head_size):
        super().__init__()
        self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
        self.proj = nn.Linear(head_size * num_heads, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        out = torch.cat([h(x) for h in self.heads], dim=-1)
        out = self.dropout(self.proj(out))
        return out


class FeedFoward(nn.Module):
    """ a simple linear layer followed by a non-linearity """

    def __init__(self, n_embd):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),
            nn.ReLU(),
            nn.Linear(4 * n_embd, n_embd),
            nn.Dropout(dropout),
        )

    def forward(self, x):
        return self.net(x)


class Block(nn.Module):
    """ Transformer block: communication followed by computation """

    def __init__(self, n_embd, n_head):
        # n_embd: embedding dimension, n_head: the number of heads we'd like
        super().__init__()
        head_size = n_embd // n_head
        self.sa = MultiHeadAttention(n_head, head_size)
        self.ffwd = FeedFoward(n_embd)
        self.ln1 = nn.LayerNorm(n_embd)
        self.ln2 = nn.LayerNorm(n_embd)

    def forward(self, x):
        x = x + self.sa(self.ln1(x))
        x = x + self.ffwd(self.ln2(x))
        return x


class GPTLanguageModel(nn.Module):

    def __init__(self):
        super().__init__()
        # each token directly reads off the logits for the next token from a lookup table
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block(n_embd, n_head=n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)  # final layer norm
        self.lm_head = nn.Linear(n_embd, vocab_size)

        # better init
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        B, T = idx.shape

        # idx and targets are both (B,T) tensor of integers
        tok_emb = self.token_embedding_table(idx)  # (B,T,C)
        pos_emb = self.position_embedding_table(torch.arange(T, device=device))  # (T,C)
        x = tok_emb + pos_emb  # (B,T,C)
        x = self.blocks(x)  # (B,T,C)
        x = self.ln_f(x)  # (B,T,C)
        logits = self.lm_head(x)  # (B,T,vocab_size)

        if targets is None:
            loss = None
        else:
            B, T, C = logits.shape
            logits = logits.view(B * T, C)
            targets = targets.view(B * T)
            loss = F.cross_entropy(logits, targets)

        return logits, loss

    def generate(self, idx, max_new_tokens):
        # idx is (B, T) array of indices in the current context
        for _ in range(max_new_tokens):
            # crop idx to the last block_size tokens
            idx_cond = idx[:, -block_size:]
            # get the predictions
            logits, _loss = self(idx_cond)
            # focus only on the last time step
            logits = logits[:, -1, :]  # becomes (B, C)
            # apply softmax to get probabilities
            probs = F.softmax(logits, dim=-1)  # (B, C)
            # sample from the distribution
            idx_next = torch.multinomial(probs, num_samples=1)  # (B, 1)
            # append sampled index to the running sequence
            idx = torch.cat((idx, idx_next), dim=1)  # (B, T+1)
        return idx


@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            _logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


torch.manual_seed(1337)
model = GPTLanguageModel()
m = model.to(device)
print("gpt_parameters", sum(p.numel() for p in m.parameters()))
print("gpt_state_dict_keys", len(m.state_dict()))
print("gpt_tril_buffer_sum", m.blocks[0].sa.heads[0].tril.sum().item())

# create a PyTorch optimizer
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)

for iter in range(max_iters):

    # every once in a while evaluate the loss on train and val sets
    if iter % eval_interval == 0 or iter == max_iters - 1:
        losses = estimate_loss()
        print(f"gpt_step{iter}_train_loss", losses["train"].item())
        print(f"gpt_step{iter}_val_loss", losses["val"].item())

    # sample a batch of data
    xb, yb = get_batch("train")

    # evaluate the loss
    logits, loss = model(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    print(f"gpt_step{iter}_loss", loss.item())

# generate from the model
context = torch.zeros((1, 1), dtype=torch.long, device=device)
print("gpt_sample", repr(decode(m.generate(context, max_new_tokens=40)[0].tolist())))
