# Save a model's and an optimizer's state with torch.save, load them into fresh objects
# with torch.load, and carry on training: the losses continue as if never interrupted.
import numpy as np
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(3)
X = torch.tensor(rng.normal(size=(64, 5)))
Y = torch.tensor(rng.normal(size=(64, 1)))


def make_model():
    model = nn.Sequential(nn.Linear(5, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 1))
    model.load_state_dict({
        k: torch.tensor(np.linspace(-0.5, 0.5, v.numel()).reshape(tuple(v.shape)))
        for k, v in model.state_dict().items()
    })
    return model


def train(model, optimizer, steps):
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(X), Y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


model = make_model()
optimizer = torch.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.5)
print("first:", train(model, optimizer, 20))
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, "checkpoint.pt")

checkpoint = torch.load("checkpoint.pt", weights_only=True)
restored = make_model()
restored.load_state_dict(checkpoint["model"])
restored_optimizer = torch.optim.RMSprop(restored.parameters(), lr=0.01, momentum=0.5)
restored_optimizer.load_state_dict(checkpoint["optimizer"])
print("keys:", list(checkpoint["model"].keys()))
print("continued:", train(model, optimizer, 10))
print("restored:", train(restored, restored_optimizer, 10))
with torch.no_grad():
    print("same outputs:", (model(X) - restored(X)).abs().max().item())
