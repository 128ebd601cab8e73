"""The "learning PyTorch with examples" style: fit a cubic to sin(x), five ways.

Written for this project as a specification for `micrograd.torch`: tensors with gradients
written by hand, autograd, a custom autograd Function, an nn.Module with Parameters and
SGD, and nn.Sequential with MSELoss and RMSprop. Prints one `name value` per line.
"""

import math

import torch

dtype = torch.float
device = torch.device("cpu")

# inputs and targets shared by every section
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)
print("x_sum", x.sum().item())
print("y_sum", y.sum().item())

# --- 1. tensors, gradients by hand ------------------------------------------------------
torch.manual_seed(0)
a = torch.randn((), device=device, dtype=dtype)
b = torch.randn((), device=device, dtype=dtype)
c = torch.randn((), device=device, dtype=dtype)
d = torch.randn((), device=device, dtype=dtype)

learning_rate = 1e-6
for t in range(2000):
    y_pred = a + b * x + c * x**2 + d * x**3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 500 == 99:
        print(f"manual_loss_t{t}", loss)

    # backprop by hand: gradients of a, b, c, d with respect to the loss
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x**2).sum()
    grad_d = (grad_y_pred * x**3).sum()

    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d
print("manual_loss_final", loss)
for name, v in zip("abcd", (a, b, c, d), strict=False):
    print(f"manual_{name}", v.item())

# --- 2. autograd -----------------------------------------------------------------------
torch.manual_seed(0)
a = torch.randn((), device=device, dtype=dtype, requires_grad=True)
b = torch.randn((), device=device, dtype=dtype, requires_grad=True)
c = torch.randn((), device=device, dtype=dtype, requires_grad=True)
d = torch.randn((), device=device, dtype=dtype, requires_grad=True)

for t in range(2000):
    y_pred = a + b * x + c * x**2 + d * x**3
    loss = (y_pred - y).pow(2).sum()
    if t % 500 == 99:
        print(f"autograd_loss_t{t}", loss.item())
    loss.backward()

    # the update itself must not be recorded
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad

        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print("autograd_loss_final", loss.item())
for name, v in zip("abcd", (a, b, c, d), strict=False):
    print(f"autograd_{name}", v.item())


# --- 3. a custom autograd Function: the Legendre polynomial P3 --------------------------
class LegendrePolynomial3(torch.autograd.Function):
    """P3(x) = (5x^3 - 3x) / 2, with its derivative written by hand."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input**3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input**2 - 1)


a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
for t in range(2000):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 500 == 99:
        print(f"legendre_loss_t{t}", loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print("legendre_loss_final", loss.item())
for name, v in zip("abcd", (a, b, c, d), strict=False):
    print(f"legendre_{name}", v.item())


# --- 4. an nn.Module subclass with Parameters, MSELoss and SGD --------------------------
class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x**2 + self.d * x**3

    def string(self):
        a, b, c, d = self.a.item(), self.b.item(), self.c.item(), self.d.item()
        return f"y = {a} + {b} x + {c} x^2 + {d} x^3"


torch.manual_seed(0)
model = Polynomial3()
print("module_parameter_count", len(list(model.parameters())))
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(2000):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 500 == 99:
        print(f"module_loss_t{t}", loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("module_loss_final", loss.item())
for name, p in model.named_parameters():
    print(f"module_{name}", p.item())
print("module_string_length", len(model.string()))

# --- 5. nn.Sequential(Linear, Flatten) on x, x^2, x^3 with RMSprop ----------------------
torch.manual_seed(0)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)  # (2000, 3)
print("xx_shape", tuple(xx.shape))

model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1),
)
loss_fn = torch.nn.MSELoss(reduction="sum")
learning_rate = 1e-3
optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate)
for t in range(2000):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 500 == 99:
        print(f"sequential_loss_t{t}", loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("sequential_loss_final", loss.item())

linear_layer = model[0]
print("sequential_bias", linear_layer.bias.item())
print("sequential_w1", linear_layer.weight[:, 0].item())
print("sequential_w2", linear_layer.weight[:, 1].item())
print("sequential_w3", linear_layer.weight[:, 2].item())
