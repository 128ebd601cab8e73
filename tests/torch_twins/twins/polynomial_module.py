# Fit sin(x) on [-pi, pi] with a third-order polynomial whose four coefficients are
# nn.Parameters of an nn.Module subclass, in the style of PyTorch's "learning PyTorch with
# examples". float64 throughout.
import math

import numpy as np
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)


class Cubic(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.tensor(0.3))
        self.b = nn.Parameter(torch.tensor(-0.2))
        self.c = nn.Parameter(torch.tensor(0.1))
        self.d = nn.Parameter(torch.tensor(0.05))

    def forward(self, x):
        return self.a + self.b * x + self.c * x * x + self.d * x * x * x

    def describe(self):
        return (f"y = {self.a.item():.6f} + {self.b.item():.6f} x + {self.c.item():.6f} x^2 "
                f"+ {self.d.item():.6f} x^3")


points = np.linspace(-math.pi, math.pi, 500)
x = torch.tensor(points)
y = torch.tensor(np.sin(points))

model = Cubic()
print("parameters:", [name for name, _ in model.named_parameters()])
criterion = nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6, momentum=0.9)
for step in range(400):
    prediction = model(x)
    loss = criterion(prediction, y)
    if step % 50 == 49:
        print(step, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=100, gamma=0.5)
for step in range(300):
    loss = criterion(model(x), y) / len(x)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    if step % 100 == 99:
        print("adam", step, loss.item(), scheduler.get_last_lr()[0])
print(model.describe())
